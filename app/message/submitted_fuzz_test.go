package message_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/message"
)

// FuzzSubmittedMessage parses any message as an SMTP client could submit
// it and prepares it with tracking off and on. Neither ever panics; a
// message that parses always prepares (unless it grows past 40 MB); the
// result parses again, holds no Bcc and no X-Herald-* field, and has a
// Message-ID; with tracking off, preparing the result again changes
// nothing (Herald added all it adds, once). Seeds in
// testdata/fuzz/FuzzSubmittedMessage: a multipart message with an
// attachment, quoted-printable and base64 HTML, broken MIME.
func FuzzSubmittedMessage(f *testing.F) {
	f.Add([]byte(submittedMixed))
	rewrite := func(html string) (string, error) {
		return strings.ReplaceAll(html, "href=\"", "href=\"https://herald.test/t/c/"+strings.Repeat("x", 40)+"?u=") +
			`<img src="https://herald.test/t/o/pixel">`, nil
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := message.ParseSubmitted(raw)
		if err != nil {
			if !errors.Is(err, message.ErrInvalidSubmission) && !errors.Is(err, message.ErrTooLarge) {
				t.Fatalf("refused with an error of no known kind: %v", err)
			}
			return
		}
		plain, err := s.Prepare(message.SubmitOptions{})
		if errors.Is(err, message.ErrTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		checkPrepared(t, plain)
		again, err := message.ParseSubmitted(plain)
		if err != nil {
			t.Fatal(err)
		}
		if twice, err := again.Prepare(message.SubmitOptions{}); err != nil || !bytes.Equal(twice, plain) {
			t.Fatalf("preparing the prepared message changed it (%v):\n%q\n%q", err, plain, twice)
		}
		tracked, err := s.Prepare(message.SubmitOptions{RewriteHTML: rewrite})
		if errors.Is(err, message.ErrTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("Prepare with tracking: %v", err)
		}
		checkPrepared(t, tracked)
	})
}

// checkPrepared checks what every prepared message must be.
func checkPrepared(t *testing.T, out []byte) {
	t.Helper()
	s, err := message.ParseSubmitted(out)
	if err != nil {
		t.Fatalf("the prepared message does not parse: %v\n%q", err, out)
	}
	if s.MessageID() == "" {
		t.Fatalf("no Message-ID:\n%q", out)
	}
	header, _, _ := bytes.Cut(out, []byte("\r\n\r\n"))
	for _, line := range strings.Split(string(header), "\r\n") {
		name, _, _ := strings.Cut(strings.ToLower(line), ":")
		if name == "bcc" || name == "resent-bcc" || strings.HasPrefix(name, "x-herald-") {
			t.Fatalf("%s was written:\n%q", name, out)
		}
	}
}
