package message

import (
	"errors"
	"strings"
	"testing"
)

// TestCRLFOnly feeds every kind of line ending into every text field and
// checks the output carries CRLF only (checkWire runs inside mustBuild).
func TestCRLFOnly(t *testing.T) {
	m := baseMessage()
	m.HTML = "<p>a\nb\rc\r\nd\n\re</p>\r"
	m.Text = "x\ny\rz\r\n\n\r"
	m.Subject = "s\nt\ru"
	m.From.Name = "n\r\nm"
	m.Headers = map[string]string{"X-Tab": "a\tb"}
	m.Attachments = []Attachment{
		{Filename: "a.txt", ContentType: "text/plain", Content: []byte("raw\nLF\rCR")},
		{Filename: "i.png", ContentType: "image/png", ContentID: "i", Inline: true, Content: []byte("\r\r\n\n")},
	}
	raw := mustBuild(t, m)
	_, leaves := parse(t, raw)
	if got := string(leaves[0].body); got != "x\r\ny\r\nz\r\n\r\n\r\n" {
		t.Errorf("text part = %q", got)
	}
	// Attachments are base64, so their bytes, bare CR and LF included, are kept.
	if got := string(leaves[3].body); got != "raw\nLF\rCR" {
		t.Errorf("attachment = %q", got)
	}
}

func TestFolding(t *testing.T) {
	m := baseMessage()
	m.Subject = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	m.To = nil
	for i := range 12 {
		m.To = append(m.To, Address{Name: "Recipient Number " + string(rune('A'+i)), Email: "r@example.org"})
	}
	m.Headers = map[string]string{
		"X-Unbroken": strings.Repeat("y", 998),                // too long for one line: encoded-words
		"X-Unicode":  strings.Repeat("ü", 998),                // non-ASCII, split into words
		"X-Spaces":   "a  b   c " + strings.Repeat("z ", 200), // runs of spaces survive
	}
	raw := mustBuild(t, m)
	h, _ := parse(t, raw)
	for _, line := range headerLines(raw) {
		// A first word that does not fit stays on the name's line: folding
		// right after the colon is legal but unusual enough to avoid.
		_, value, _ := strings.Cut(line, ": ")
		if len(line) > foldAt && (line[0] == ' ' || strings.Contains(value, " ")) {
			t.Errorf("header line of %d characters: %.60q...", len(line), line)
		}
		if strings.TrimSpace(line) == "" {
			t.Errorf("whitespace-only header line")
		}
	}
	if got := decodeHeader(t, h.Get("Subject")); got != strings.TrimSpace(m.Subject) {
		// net/textproto trims the trailing space when it unfolds.
		t.Errorf("Subject = %q", got)
	}
	for _, k := range []string{"X-Unbroken", "X-Unicode"} {
		if got := decodeHeader(t, h.Get(k)); got != m.Headers[k] {
			t.Errorf("%s decoded to %q", k, got)
		}
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 12 || to[11].Name != "Recipient Number L" {
		t.Errorf("To = %v, %v", to, err)
	}
}

func TestStructuredLineTooLong(t *testing.T) {
	m := baseMessage()
	m.ListUnsubscribe = "https://example.com/u/" + strings.Repeat("t", 1000)
	if _, err := Build(m); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("err = %v, want ErrLineTooLong", err)
	}
}
