package message

import (
	"bytes"
	"io"
	"math/bits"
	"math/rand/v2"
	"mime/quotedprintable"
	"strings"
	"testing"
)

// TestUnusual8 checks that the first byte unusual8 flags is the first byte
// outside ' '..'~' or "=", for every byte at every position, next to bytes
// that cause borrows and carries.
func TestUnusual8(t *testing.T) {
	eachWord([]byte{'a', ' ', '~', '!', 0x00, 0xff, '=', 0x7f, 0x1f, '\t', 0x80}, func(w [8]byte) {
		want := 8
		for i, b := range w {
			if b < ' ' || b > '~' || b == '=' {
				want = i
				break
			}
		}
		if got := bits.TrailingZeros64(unusual8(load64(string(w[:]), 0))) / 8; got != want {
			t.Fatalf("unusual8(%q) flags byte %d first, want %d", w, got, want)
		}
	})
}

// eachWord calls f with every word of eight fill bytes in which one byte,
// at any position, is replaced by any value.
func eachWord(fills []byte, f func(w [8]byte)) {
	for _, fill := range fills {
		for pos := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				f(w)
			}
		}
	}
}

func TestLiteralRun(t *testing.T) {
	for _, s := range []string{"", "a", "abc=", "0123456789abcdef", "0123456\t89ab\tdef=", "01234567\x80", "\t\t\t\t\t\t\t\t\t\n",
		"0123456789abcdefé", "=", "x y z w v u t s r q p"} {
		want := 0
		for want < len(s) && qpLiteral[s[want]] {
			want++
		}
		if got := literalRun(s); got != want {
			t.Errorf("literalRun(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestQuotedPrintable(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a=b", "a=3Db"},
		{"tab\tinside and space", "tab\tinside and space"},
		{"trailing space ", "trailing space=20"},
		{"trailing tab\t", "trailing tab=09"},
		{"space before LF \nand CRLF \r\nend", "space before LF=20\r\nand CRLF=20\r\nend"},
		{"two spaces  \n", "two spaces =20\r\n"},
		{"lf\ncr\rcrlf\r\nlfcr\n\r", "lf\r\ncr\r\ncrlf\r\nlfcr\r\n\r\n"},
		{"é\x00\x7f", "=C3=A9=00=7F"},
		// An LF after a CR and an encoded byte is a line end of its own
		// (mime/quotedprintable drops it).
		{"a\r=\nb", "a\r\n=3D\r\nb"},
		// 75 characters fill a line; the 76th goes to the next.
		{strings.Repeat("x", 75), strings.Repeat("x", 75)},
		{strings.Repeat("x", 76), strings.Repeat("x", 75) + "=\r\nx"},
		{strings.Repeat("x", 75) + "\n", strings.Repeat("x", 75) + "\r\n"},
		// An encoded byte that would pass column 75 goes to the next line.
		{strings.Repeat("x", 72) + "=", strings.Repeat("x", 72) + "=3D"},
		{strings.Repeat("x", 73) + "=", strings.Repeat("x", 73) + "=\r\n=3D"},
		// A trailing space encoded at the end of a full line.
		{strings.Repeat("x", 74) + " \n", strings.Repeat("x", 74) + "=\r\n=20\r\n"},
		{strings.Repeat("x", 72) + " ", strings.Repeat("x", 72) + "=20"},
		{strings.Repeat("x", 73) + " ", strings.Repeat("x", 73) + "=\r\n=20"},
	}
	for _, c := range cases {
		if got := string(appendQuotedPrintable(nil, c.in)); got != c.want {
			t.Errorf("appendQuotedPrintable(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestQuotedPrintableRoundTrip decodes random encodings: the text comes
// back with CRLF line ends, and every line keeps to the limits.
func TestQuotedPrintableRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	crlf := strings.NewReplacer("\r\n", "\r\n", "\r", "\r\n", "\n", "\r\n")
	for i := range 3000 {
		in := randomQPInput(r, i%400)
		enc := appendQuotedPrintable(nil, in)
		dec, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(enc)))
		if err != nil {
			t.Fatalf("decoding %q: %v", enc, err)
		}
		if want := crlf.Replace(in); string(dec) != want {
			t.Fatalf("round trip of %q gave %q, want %q", in, dec, want)
		}
		for _, line := range strings.Split(string(enc), "\r\n") {
			if len(line) > 76 || strings.ContainsAny(line, "\r\n") || strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
				t.Fatalf("encoding %q has line %q", in, line)
			}
		}
	}
}
