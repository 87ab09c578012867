package message

import (
	"bytes"
	"net/mail"
	"regexp"
	"strings"
	"testing"
)

var encodedWordRe = regexp.MustCompile(`=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=`)

// Every header line at most 78 characters and every encoded-word at most
// 75 (RFC 2047 §2), for long and non-ASCII subjects, display names of up to
// 256 characters, custom headers and attachment names; the values read back
// unchanged.
func TestHeaderLinesAndEncodedWordsBounded(t *testing.T) {
	names := []string{
		strings.Repeat("É", 128),                            // 256 bytes, B-encoded
		strings.Repeat("x", 256),                            // one ASCII word too long for a line
		"Zoë " + strings.Repeat("Müller-Lüdenscheidt ", 11), // Q-encoded, with spaces
		strings.Repeat("日本語", 28),
	}
	subjects := []string{
		"Votre relevé de compte détaillé pour le mois de décembre est disponible en ligne",
		strings.Repeat("Приветствие ", 12),
		"plain " + strings.Repeat("y", 120),
		"=?utf-8?q?not_an_encoded_word?= literal",
	}
	for i, name := range names {
		m := baseMessage()
		m.From.Name = name
		m.To = []Address{{Name: names[(i+1)%len(names)], Email: "to@example.org"}, {Name: "Ann", Email: "ann@example.org"}}
		m.Subject = subjects[i]
		m.Headers = map[string]string{"X-Campaign-Label": subjects[(i+1)%len(subjects)]}
		m.Attachments = []Attachment{{Filename: strings.Repeat("Relevé ", 14) + ".pdf", ContentType: "application/pdf", Content: []byte("%PDF")}}
		raw := mustBuild(t, m)
		for _, line := range strings.Split(string(raw), "\r\n") {
			if len(line) > 78 && !strings.HasPrefix(line, "<") && !isBody(raw, line) {
				t.Errorf("case %d: header line of %d: %q", i, len(line), line)
			}
			for _, w := range encodedWordRe.FindAllString(line, -1) {
				if len(w) > 75 {
					t.Errorf("case %d: encoded word of %d: %q", i, len(w), w)
				}
			}
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeHeader(t, msg.Header.Get("Subject")); got != m.Subject {
			t.Errorf("case %d: subject %q, want %q", i, got, m.Subject)
		}
		from, err := mail.ParseAddress(msg.Header.Get("From"))
		if err != nil || from.Name != name {
			t.Errorf("case %d: From %q → %+v %v", i, msg.Header.Get("From"), from, err)
		}
		to, err := mail.ParseAddressList(msg.Header.Get("To"))
		if err != nil || len(to) != 2 || to[0].Name != m.To[0].Name {
			t.Errorf("case %d: To %q → %v %v", i, msg.Header.Get("To"), to, err)
		}
	}
}

// isBody reports whether line is in the body (after the header's end).
func isBody(raw []byte, line string) bool {
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	return !bytes.Contains(head, []byte(line))
}

// A long message id in References stays as it is (threading reads it),
// while a long bare word in a subject is encoded to fit the lines.
func TestLongBracketedTokensStay(t *testing.T) {
	m := baseMessage()
	id := "<" + strings.Repeat("CAF", 30) + "@mail.example.com>"
	m.Headers = map[string]string{"References": id + " <short@example.com>"}
	m.Subject = strings.Repeat("y", 120)
	raw := mustBuild(t, m)
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.Header.Get("References"); got != id+" <short@example.com>" {
		t.Errorf("References = %q", got)
	}
	if got := decodeHeader(t, msg.Header.Get("Subject")); got != m.Subject {
		t.Errorf("Subject = %q", got)
	}
	for _, line := range headerLines(raw) {
		if len(line) > 78 && !strings.Contains(line, id) {
			t.Errorf("line of %d: %q", len(line), line)
		}
	}
}
