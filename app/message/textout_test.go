package message

import (
	"math/bits"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestIsSpaceRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		if isSpaceRune(r) != unicode.IsSpace(r) {
			t.Fatalf("isSpaceRune(%U) = %v", r, isSpaceRune(r))
		}
	}
}

// TestRunStops8 checks that the first byte runStops8 flags is the first
// that is neither runByte nor a space, or a space followed by another or
// ending the word.
func TestRunStops8(t *testing.T) {
	fills := []byte{'a', ' ', '~', '!', 0x00, 0xff, '<', '&', 0x7f, 0x1f, '\t', 0x80, 0x1c, 0x26, 0x3b, 0xc3}
	eachWord(fills, func(w [8]byte) {
		want := 8
		for i, b := range w {
			if !runByte[b] && b != ' ' || b == ' ' && (i == 7 || w[i+1] == ' ') {
				want = i
				break
			}
		}
		if got := bits.TrailingZeros64(runStops8(load64(w[:], 0))) / 8; got != want {
			t.Fatalf("runStops8(%q) flags byte %d first, want %d", w, got, want)
		}
	})
}

// TestRuneOffset compares the word-at-a-time count with a plain one.
func TestRuneOffset(t *testing.T) {
	for _, s := range []string{"", "abc", strings.Repeat("a", 100), strings.Repeat("é", 100), strings.Repeat("aé日🎉", 30),
		"\x80\x80\x80" + strings.Repeat("x", 90), strings.Repeat("a", 75) + "\x80\x80b", strings.Repeat("日", 8) + "abc"} {
		for n := range len(s) + 2 {
			want, k := len(s), n
			for i := range len(s) {
				if utf8.RuneStart(s[i]) {
					if k == 0 {
						want = i
						break
					}
					k--
				}
			}
			if got := runeOffset([]byte(s), n); got != want {
				t.Errorf("runeOffset(%q, %d) = %d, want %d", s, n, got, want)
			}
		}
	}
}

// TestSameTarget compares sameTarget with the plain version it replaced,
// which lower-cased both strings, on cases where lower-casing and folding
// differ.
func TestSameTarget(t *testing.T) {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		for _, p := range [...]string{"https://", "http://", "mailto:", "tel:"} {
			s = strings.TrimPrefix(s, p)
		}
		return strings.TrimSuffix(s, "/")
	}
	values := []string{"example.com", "Example.COM/", "https://example.com", "HTTPS://EXAMPLE.COM/",
		"http://https://example.com", "mailto:a@b.example", "MAILTO:A@B.EXAMPLE", "tel:+1", "tel:", "https://",
		"/", "x", "X/", "ſ", "s", "S", "\u212a", "k", "K", "\u0130", "i", "I", "ς", "σ", "Σ",
		"httpſ://x", "https://\u212a", "https://k", "\xff", "\xff/", "mailto:tel:x", "tel:mailto:x", "é", "É/"}
	for _, a := range values {
		for _, b := range values {
			if got, want := sameTarget(a, b), norm(a) == norm(b); got != want {
				t.Errorf("sameTarget(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

func TestHasPrefixLower(t *testing.T) {
	for _, s := range []string{"javascript:x", "JavaScript:x", "JAVASCRIPT:", "javascript", "javascrİpt:x",
		"\u212aavascript:", "java\u017fcript:", "", "j", "javascript:\xff", "\xffjavascript:"} {
		if got, want := hasPrefixLower(s, "javascript:"), strings.HasPrefix(strings.ToLower(s), "javascript:"); got != want {
			t.Errorf("hasPrefixLower(%q) = %v, want %v", s, got, want)
		}
	}
}
