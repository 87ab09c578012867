package message

import (
	"bytes"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// textWriter accumulates derived text. Separators are kept pending until the
// next visible character, so runs of whitespace and nested blocks collapse
// into one space or at most one blank line, and none trail at the end.
type textWriter struct {
	out      appendBuffer
	space    bool   // a space is due before the next character
	newlines int    // line breaks due before the next character
	prefix   string // written after the breaks, such as "- " for <li>
	inHead   bool
	pre      int // depth of <pre>, where whitespace is kept

	inLink    bool
	href      string
	linkStart int // where the link's text begins in out; -1 before any

	wrapped int // out up to here is wrapped
}

func (t *textWriter) breakLines(n int) { t.newlines = max(t.newlines, n) }

// text appends decoded character data, such as an entity's or an alt
// attribute's.
func (t *textWriter) text(s string) { t.chars(s, 0, false) }

// chars appends the character data in s from i and returns where it ends:
// at the end of s or, in source text, at the "<" of markup. Source text
// also has its character references decoded. Visible characters come in
// runs, written at the bottom of the loop; the other cases continue it.
func (t *textWriter) chars(s string, i int, source bool) int {
	for i < len(s) {
		next := i + 1 // after the first character of a run starting at s[i]
		switch c := s[i]; {
		case runByte[c]: // a run starts
		case source && c == '<':
			return i
		case source && c == '&':
			ref := entityRef(s[i:])
			t.text(entity(ref))
			i += len(ref)
			continue
		case c == ' ' && t.pre == 0: // the usual whitespace, as ascii has it
			t.space = true
			i++
			continue
		case c < utf8.RuneSelf: // whitespace, control, "<" and "&"
			t.ascii(c)
			i++
			continue
		default: // a visible character, unless it is a space or invisible
			r, size := utf8.DecodeRuneInString(s[i:])
			if invisible(r) || isSpaceRune(r) {
				t.blank(r)
				i += size
				continue
			}
			next = i + size // an invalid byte is copied too, as one character
		}
		end := t.runEnd(s, next)
		t.flush()
		t.out.write(s[i:end])
		i = end
	}
	return i
}

// runByte marks the ASCII bytes that runs of text are made of: the visible
// ones other than the "<" and "&" that end character data. Read-only.
var runByte = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '<' && c != '&'
	}
	return t
}()

// runEnd returns where the run of text from s[i] ends. Nothing is pending
// inside a run, so it is copied as it is: visible characters, the single
// spaces between words, and in <pre> every space.
func (t *textWriter) runEnd(s string, i int) int {
	for i < len(s) {
		if t.pre == 0 && i+8 <= len(s) {
			stops := runStops8(load64(s, i))
			if stops == 0 {
				i += 8
				continue
			}
			// Go to the first stop, looked at below. A space before it is
			// not followed by a runByte, so the run ends there.
			if p := bits.TrailingZeros64(stops) / 8; p > 0 {
				i += p
				if s[i-1] == ' ' {
					return i - 1
				}
			}
		}
		switch c := s[i]; {
		case runByte[c]:
			i++
		case c == ' ':
			if t.pre == 0 && (i+1 == len(s) || !runByte[s[i+1]]) {
				return i
			}
			i++
		case c < utf8.RuneSelf:
			return i
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if invisible(r) || isSpaceRune(r) {
				return i
			}
			i += size // an invalid byte is copied too, as one character
		}
	}
	return i
}

// runStops8 flags the bytes of x (eight bytes, little-endian) where a run
// outside <pre> may stop: those neither runByte nor a space, and spaces
// followed by another or ending x. A space before the first flag may stop
// the run too. The lowest flag is exact: a borrow or carry between bytes
// only starts at a flagged byte and moves up, and the spaces are found
// without any.
func runStops8(x uint64) uint64 {
	below, del := x-' '*ones, x+ones
	lt, amp := (x^'<'*ones)-ones, (x^'&'*ones)-ones
	y := x ^ ' '*ones // 0 where x has a space
	spaces := ^(y&^highs + ^uint64(highs) | y) & highs
	return (below|x|del|lt|amp)&highs | spaces&(spaces>>8|1<<63)
}

// isSpaceRune is unicode.IsSpace, answering at once outside the few ranges
// that hold White_Space characters (TestIsSpaceRune checks them all), where
// most non-ASCII text is.
func isSpaceRune(r rune) bool {
	switch {
	case r <= 0xff:
	case r < 0x1680, r > 0x3000, r > 0x200a && r < 0x2028, r > 0x205f && r < 0x3000:
		return false
	}
	return unicode.IsSpace(r)
}

// blank handles a space or invisible character.
func (t *textWriter) blank(r rune) {
	if !invisible(r) { // NBSP and friends collapse like spaces
		t.ascii(' ')
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
		t.out.writeByte(' ')
	case c < ' ' || c == 0x7f: // other control characters mean nothing to a reader
	default:
		t.flush()
		t.out.writeByte(c)
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

// flush writes the pending separators before a visible character. It is
// called for every run of text, so the usual case, nothing pending, is
// kept small enough to inline.
func (t *textWriter) flush() {
	if t.newlines > 0 || t.space || t.prefix != "" || t.inLink {
		t.writePending()
	}
}

// writePending writes what flush found pending.
func (t *textWriter) writePending() {
	if t.out.n > 0 {
		if t.newlines > 0 {
			t.endLine()
			t.out.write("\n\n"[:min(t.newlines, 2)])
		} else if t.space {
			t.out.writeByte(' ')
		}
	}
	t.newlines, t.space = 0, false
	if t.prefix != "" {
		t.out.write(t.prefix)
		t.prefix = ""
	}
	if t.inLink && t.linkStart < 0 {
		t.linkStart = t.out.n
	}
}

// endLine wraps the lines written since the last call, now that no more
// will be added to them, unless a link is open: its text is compared with
// its URL at the end, as written.
func (t *textWriter) endLine() {
	if t.inLink {
		return
	}
	if t.out.n-t.wrapped > wrapAt { // shorter lines need no wrapping
		wrap(t.out.bytes()[t.wrapped:], wrapAt)
	}
	t.wrapped = t.out.n
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
		text = bytes.TrimSpace(t.out.bytes()[t.linkStart:])
	}
	switch {
	case len(text) == 0:
		t.flush()
		t.out.write(t.href)
	case sameTarget(string(text), t.href):
	default:
		t.out.write(" (")
		t.out.write(t.href)
		t.out.writeByte(')')
	}
	t.href = ""
}

// finish wraps the last lines and returns the text.
func (t *textWriter) finish() []byte {
	wrap(t.out.bytes()[t.wrapped:], wrapAt)
	return t.out.bytes()
}

// appendBuffer is an append-only buffer that keeps the length apart from the
// slice, so that appending stores no pointer unless the buffer grows.
// Appending to a slice field stores the slice back on every call, and
// while the GC is marking each such store goes through a write barrier,
// which made up a sixth of HTMLToText.
type appendBuffer struct {
	buf []byte // the text is buf[:n]; the rest is room to grow into
	n   int
}

func (b *appendBuffer) bytes() []byte { return b.buf[:b.n] }

func (b *appendBuffer) write(s string) {
	if len(s) > len(b.buf)-b.n {
		b.grow(len(s))
	}
	b.n += copy(b.buf[b.n:], s)
}

func (b *appendBuffer) writeByte(c byte) {
	if b.n == len(b.buf) {
		b.grow(1)
	}
	b.buf[b.n] = c
	b.n++
}

func (b *appendBuffer) grow(n int) {
	buf := slices.Grow(b.buf[:b.n], n)
	b.buf = buf[:cap(buf)]
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

// runeOffset returns the byte offset of rune n of b, or len(b). It counts
// the bytes that start a rune (all but 0b10xxxxxx) eight at a time.
func runeOffset(b []byte, n int) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := load64(b, i)
		starts := bits.OnesCount64((^x | x<<1) & highs)
		if starts > n {
			break
		}
		n -= starts
	}
	for ; i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(b)
}
