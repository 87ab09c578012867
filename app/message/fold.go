package message

import (
	"bytes"
	"encoding/base64"
	"mime"
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

// word writes a space and w, folding first when w would not fit. The first
// word stays on the name's line, and empty words never fold, so no line is
// left holding only whitespace.
func (h *headerLine) word(w string) {
	if h.col > h.start && len(w) > 0 && h.col+1+len(w) > foldAt {
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
	case longestWord(v)+h.start+1 > maxLine || plainASCII(v) && strings.Contains(v, "=?"):
		// Go's encoder leaves ASCII alone, but a literal "=?...?=" would be
		// decoded by the reader, and an overlong word needs splitting.
		h.forceEncoded(v)
	case !plainASCII(v):
		h.words(encodeWord(v))
	default:
		h.words(v)
	}
}

// encodeWord picks Q encoding for mostly-Latin text, which stays readable,
// and B encoding when most bytes are non-ASCII, where it is shorter.
func encodeWord(v string) string {
	high := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			high++
		}
	}
	if high > len(v)/3 {
		return mime.BEncoding.Encode("utf-8", v)
	}
	return mime.QEncoding.Encode("utf-8", v)
}

// forceEncoded writes v as B encoded-words of at most 45 bytes of text (72
// characters each), cut at rune boundaries as RFC 2047 §5 requires.
func (h *headerLine) forceEncoded(v string) {
	const chunk = 45
	for len(v) > 0 {
		n := min(chunk, len(v))
		for n < len(v) && n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		h.word("=?utf-8?b?" + base64.StdEncoding.EncodeToString([]byte(v[:n])) + "?=")
		v = v[n:]
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
