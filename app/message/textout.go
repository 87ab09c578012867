package message

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// textWriter accumulates derived text. Separators are kept pending until the
// next visible character, so runs of whitespace and nested blocks collapse
// into one space or at most one blank line, and none trail at the end.
type textWriter struct {
	out      []byte
	space    bool   // a space is due before the next character
	newlines int    // line breaks due before the next character
	prefix   string // written after the breaks, such as "- " for <li>
	inHead   bool
	pre      int // depth of <pre>, where whitespace is kept

	inLink    bool
	href      string
	linkStart int // where the link's text begins in out; -1 before any
}

func (t *textWriter) breakLines(n int) { t.newlines = max(t.newlines, n) }

// text appends decoded character data.
func (t *textWriter) text(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c > ' ' && c < 0x7f { // a run of visible ASCII is copied at once
			j := i + 1
			for j < len(s) && s[j] > ' ' && s[j] < 0x7f {
				j++
			}
			t.flush()
			t.out = append(t.out, s[i:j]...)
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			i++
			t.ascii(c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case invisible(r):
		case unicode.IsSpace(r): // NBSP and friends collapse like spaces
			t.ascii(' ')
		default:
			t.flush()
			t.out = append(t.out, s[i-size:i]...)
		}
	}
}

func (t *textWriter) ascii(c byte) {
	switch {
	case t.pre > 0 && c == '\n':
		t.newlines++
	case t.pre > 0 && c == '\r': // CRLF counts once
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		if t.pre == 0 {
			t.space = true
			return
		}
		t.flush()
		t.out = append(t.out, ' ')
	case c < ' ' || c == 0x7f: // other control characters mean nothing to a reader
	default:
		t.flush()
		t.out = append(t.out, c)
	}
}

// invisible reports characters that email HTML uses as invisible padding
// (preheader tricks with &zwnj; and &#847;) and that would show as noise.
func invisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u034f', '\u00ad':
		return true
	}
	return false
}

// flush writes the pending separators before a visible character.
func (t *textWriter) flush() {
	if len(t.out) > 0 {
		if t.newlines > 0 {
			t.out = append(t.out, "\n\n"[:min(t.newlines, 2)]...)
		} else if t.space {
			t.out = append(t.out, ' ')
		}
	}
	t.newlines, t.space = 0, false
	if t.prefix != "" {
		t.out = append(t.out, t.prefix...)
		t.prefix = ""
	}
	if t.inLink && t.linkStart < 0 {
		t.linkStart = len(t.out)
	}
}

// endLink appends the URL after a link's text, or shows the URL alone when
// the link had no text (an image without alt text).
func (t *textWriter) endLink() {
	t.inLink = false
	if t.href == "" {
		return
	}
	var text []byte
	if t.linkStart >= 0 {
		text = bytes.TrimSpace(t.out[t.linkStart:])
	}
	switch {
	case len(text) == 0:
		t.flush()
		t.out = append(t.out, t.href...)
	case sameTarget(string(text), t.href):
	default:
		t.out = append(t.out, " ("...)
		t.out = append(t.out, t.href...)
		t.out = append(t.out, ')')
	}
	t.href = ""
}

func (t *textWriter) finish() string {
	wrap(t.out, wrapAt)
	return string(t.out)
}

// wrap breaks lines longer than width runes at their last space before the
// limit, in place: a space simply becomes a newline. A word longer than
// width, such as a URL, is not split; the line breaks after it.
func wrap(b []byte, width int) {
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			wrapLine(b, width)
			return
		}
		wrapLine(b[:nl], width)
		b = b[nl+1:]
	}
}

func wrapLine(line []byte, width int) {
	for len(line) > width { // a line of at most width bytes has at most width runes
		cut := runeOffset(line, width)
		if cut == len(line) {
			return
		}
		i := cut // a space right after width runes is the ideal break
		if line[cut] != ' ' {
			i = bytes.LastIndexByte(line[:cut], ' ')
		}
		if i <= 0 { // no space to break at before the limit: break after the word
			j := bytes.IndexByte(line[cut:], ' ')
			if j < 0 {
				return
			}
			i = cut + j
		}
		line[i] = '\n'
		line = line[i+1:]
	}
}

// runeOffset returns the byte offset of rune n of b, or len(b).
func runeOffset(b []byte, n int) int {
	for i := range b {
		if utf8.RuneStart(b[i]) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(b)
}
