package message

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

const (
	foldAt  = 78  // RFC 5322 §2.1.1: lines SHOULD be at most 78 characters
	maxLine = 998 // and MUST be at most 998
)

// headerLine writes one header field, folding before a word that would carry
// the line past foldAt. Folding only inserts CRLF in front of existing
// whitespace, which unfolding removes again (RFC 5322 §2.2.3), so it never
// changes a value.
type headerLine struct {
	b       *bytes.Buffer
	col     int  // characters on the current line
	start   int  // col right after "Name:"
	tooLong bool // a line passed maxLine
}

func beginHeader(b *bytes.Buffer, name string) headerLine {
	b.WriteString(name)
	b.WriteByte(':')
	return headerLine{b: b, col: len(name) + 1, start: len(name) + 1}
}

// word writes a space and w, folding first when w would not fit. Empty
// words never fold, so no line is left holding only whitespace. The first
// word folds off the name's line only when that makes it fit (a URL or
// message id of 60-odd characters after a long field name); a token too
// long for any line stays on the name's line, where it passes 78 the
// least.
func (h *headerLine) word(w string) {
	fold := h.col > h.start || 1+len(w) <= foldAt
	if fold && len(w) > 0 && h.col+1+len(w) > foldAt {
		h.b.WriteString("\r\n")
		h.col = 0
	}
	h.b.WriteByte(' ')
	h.b.WriteString(w)
	h.col += 1 + len(w)
	if h.col > maxLine {
		h.tooLong = true
	}
}

// words writes s split at its spaces, each piece a word.
func (h *headerLine) words(s string) {
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			h.word(s)
			return
		}
		h.word(s[:i])
		s = s[i+1:]
	}
}

func (h *headerLine) end() error {
	h.b.WriteString("\r\n")
	if h.tooLong {
		return ErrLineTooLong
	}
	return nil
}

// unstructured writes a free-text value (Subject, custom headers), RFC 2047
// encoding it when it is not plain ASCII. Such values can always be encoded,
// so an unbreakable run too long for one line is sent as encoded-words
// rather than refused.
func (h *headerLine) unstructured(v string) {
	switch {
	case plainASCII(v) && !strings.Contains(v, "=?") && longWordsBracketed(v, foldAt-h.start-1):
		// A message id or URL in angle brackets (References, a custom
		// header naming a link) is one token that readers must see as it
		// is: it may pass 78 characters, never 998 (checked elsewhere).
		h.words(v)
	case longestWord(v)+h.start+1 > foldAt || plainASCII(v) && strings.Contains(v, "=?"):
		// A literal "=?...?=" would be decoded by the reader, and a word
		// too long for a line needs splitting.
		h.encoded(v)
	case !plainASCII(v):
		h.encoded(v)
	default:
		h.words(v)
	}
}

// maxEncodedWord is RFC 2047 §2's bound on one encoded-word.
const maxEncodedWord = 75

// encoded writes v as RFC 2047 encoded-words (charset utf-8), each at most
// 75 characters and each line at most 78: a word is cut to the room left on
// its line, at rune boundaries (§5), and the next one starts a folded line.
// Readers join adjacent encoded-words without the space between them
// (§6.2), so the folds do not change the text. Q encoding keeps mostly
// Latin text readable; B is shorter when most bytes are not ASCII. The
// characters Q leaves as they are are the ones §5(3) allows in a phrase
// too, so display names use it as well.
func (h *headerLine) encoded(v string) {
	high := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			high++
		}
	}
	b := high > len(v)/3
	const minWord = len("=?utf-8?q?") + len("?=") + 12
	for len(v) > 0 {
		room := min(foldAt-h.col-1, maxEncodedWord)
		if room < minWord {
			h.b.WriteString("\r\n")
			h.col = 0
			room = maxEncodedWord
		}
		word, rest := encodeChunk(v, room, b)
		h.b.WriteByte(' ')
		h.b.WriteString(word)
		h.col += 1 + len(word)
		v = rest
		if len(v) > 0 {
			h.b.WriteString("\r\n")
			h.col = 0
		}
	}
}

// encodeChunk encodes as much of v as fits in one encoded-word of at most
// room characters, whole runes only, and returns it with the rest of v.
func encodeChunk(v string, room int, b bool) (word, rest string) {
	var w strings.Builder
	if b {
		w.WriteString("=?utf-8?b?")
		n := 0
		for n < len(v) {
			_, size := utf8.DecodeRuneInString(v[n:])
			if len("=?utf-8?b?")+base64.StdEncoding.EncodedLen(n+size)+2 > room && n > 0 {
				break
			}
			n += size
		}
		w.WriteString(base64.StdEncoding.EncodeToString([]byte(v[:n])))
		w.WriteString("?=")
		return w.String(), v[n:]
	}
	w.WriteString("=?utf-8?q?")
	n := 0
	for n < len(v) {
		_, size := utf8.DecodeRuneInString(v[n:])
		need := 0
		for i := n; i < n+size; i++ {
			need += qLen(v[i])
		}
		if w.Len()+need+2 > room && n > 0 {
			break
		}
		for i := n; i < n+size; i++ {
			qByte(&w, v[i])
		}
		n += size
	}
	w.WriteString("?=")
	return w.String(), v[n:]
}

func qSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '!' || c == '*' || c == '+' || c == '-' || c == '/'
}

func qLen(c byte) int {
	if qSafe(c) || c == ' ' {
		return 1
	}
	return 3
}

func qByte(w *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	switch {
	case c == ' ':
		w.WriteByte('_')
	case qSafe(c):
		w.WriteByte(c)
	default:
		w.WriteByte('=')
		w.WriteByte(hex[c>>4])
		w.WriteByte(hex[c&15])
	}
}

// plainASCII reports whether v can go into a header as it is: printable
// ASCII, spaces and tabs only.
func plainASCII(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c > '~' {
			return false
		}
	}
	return true
}

// longWordsBracketed reports whether every word of v longer than n is an
// angle-bracketed token ("<id@host>", "<https://...>", with a trailing
// comma allowed), and there is at least one.
func longWordsBracketed(v string, n int) bool {
	found := false
	for _, w := range strings.Split(v, " ") {
		if len(w) <= n {
			continue
		}
		w = strings.TrimSuffix(w, ",")
		if !strings.HasPrefix(w, "<") || !strings.HasSuffix(w, ">") {
			return false
		}
		found = true
	}
	return found
}

func longestWord(v string) int {
	longest := 0
	for len(v) > 0 {
		i := strings.IndexByte(v, ' ')
		if i < 0 {
			i = len(v)
		}
		longest = max(longest, i)
		v = v[min(i+1, len(v)):]
	}
	return longest
}

// stripLines replaces each run of CR and LF with one space: callers validate
// values, and this makes a missed one harmless instead of a new header.
func stripLines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	inBreak := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\r' || c == '\n' {
			if !inBreak {
				b.WriteByte(' ')
			}
			inBreak = true
			continue
		}
		inBreak = false
		b.WriteByte(s[i])
	}
	return b.String()
}
