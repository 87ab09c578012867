package dkim

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
)

// The body hash is compared with the plain reading of §3.4.4 below, which
// builds the whole canonical body a byte at a time.

// relaxedBody is §3.4.4: whitespace runs made one space, whitespace at line
// ends removed, empty lines at the end removed, a non-empty body ending in
// CRLF.
func relaxedBody(body []byte) []byte {
	out := make([]byte, 0, len(body))
	for len(body) > 0 {
		line, rest, found := bytes.Cut(body, []byte("\r\n"))
		body = rest
		space := false
		for _, c := range line {
			if c == ' ' || c == '\t' {
				space = true
				continue
			}
			if space {
				out = append(out, ' ')
			}
			space = false
			out = append(out, c)
		}
		if found || len(line) > 0 {
			out = append(out, '\r', '\n')
		}
	}
	for bytes.HasSuffix(out, []byte("\r\n\r\n")) {
		out = out[:len(out)-2]
	}
	if bytes.Equal(out, []byte("\r\n")) {
		return out[:0]
	}
	return out
}

var bodyCases = []string{
	"", "\r\n", "\r\n\r\n", " \r\n\t\r\n", "abc", "abc\r\n", "abc\r\n\r\n\r\n", "\r\n\r\nabc\r\n\r\n",
	"a  b\t\tc  \r\n", "  lead\r\n", "\tx \t y\t\r\n \r\nz", "a\r\n \r\n\r\nb\r\n \t \r\n",
	"bare\nlf and bare\r cr \r\n", "line\r\n\r\n\r\n\r\n\r\nafter many blanks",
	strings.Repeat("word ", 3000) + "\r\n" + strings.Repeat("\r\n", 3000) + "end",
	strings.Repeat("=3D quoted printable line of seventy six characters or so, soft break =\r\n", 400),
}

func TestRelaxedBodyHash(t *testing.T) {
	for _, c := range bodyCases {
		if got, want := relaxedBodyHash([]byte(c)), sha256.Sum256(relaxedBody([]byte(c))); got != want {
			t.Errorf("%.40q: hash differs from the reference's", c)
		}
	}
}

func FuzzRelaxedBodyHash(f *testing.F) {
	for _, c := range bodyCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if relaxedBodyHash(body) != sha256.Sum256(relaxedBody(body)) {
			t.Errorf("%q: hash differs from the reference's", body)
		}
	})
}

func BenchmarkRelaxedBodyHash(b *testing.B) {
	body := []byte(strings.Repeat("<p>Some   newsletter text, with a link =\r\n<a href=3D\"https://example.com\">here</a>.</p>\r\n", 300))
	b.SetBytes(int64(len(body)))
	b.Run("streamed", func(b *testing.B) {
		for b.Loop() {
			relaxedBodyHash(body)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			sha256.Sum256(relaxedBody(body))
		}
	})
}

func BenchmarkSHA256Only(b *testing.B) {
	body := []byte(strings.Repeat("<p>Some   newsletter text, with a link =\r\n<a href=3D\"https://example.com\">here</a>.</p>\r\n", 300))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		sha256.Sum256(body)
	}
}
