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
	skip     string // the raw-text element being dropped (script, style...)
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

// wrap breaks lines longer than width at their last space before the limit,
// in place: a space simply becomes a newline. Width counts runes.
func wrap(b []byte, width int) {
	col, lastSpace, colAtSpace := 0, -1, 0
	for i := 0; i < len(b); {
		c := b[i]
		size := 1
		if c >= utf8.RuneSelf {
			_, size = utf8.DecodeRune(b[i:])
		}
		switch {
		case c == '\n':
			col, lastSpace = 0, -1
			i++
			continue
		case c == ' ':
			lastSpace, colAtSpace = i, col+1
		}
		col++
		if col > width && lastSpace >= 0 {
			b[lastSpace] = '\n'
			col -= colAtSpace
			lastSpace = -1
		}
		i += size
	}
}
