package dkim_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	msgauth "github.com/emersion/go-msgauth/dkim"

	"github.com/heraldmail/herald/dkim"
)

const testDomain = "mail.example.com"

func mustGenerate(tb testing.TB, alg dkim.Algorithm) dkim.Key {
	tb.Helper()
	k, err := dkim.Generate(alg, "herald202604")
	if err != nil {
		tb.Fatalf("Generate(%q): %v", alg, err)
	}
	return k
}

func mustSigner(tb testing.TB, k dkim.Key) *dkim.Signer {
	tb.Helper()
	s, err := k.Signer()
	if err != nil {
		tb.Fatalf("Signer: %v", err)
	}
	return s
}

func mustRecord(tb testing.TB, k dkim.Key) string {
	tb.Helper()
	v, err := k.RecordValue()
	if err != nil {
		tb.Fatalf("RecordValue: %v", err)
	}
	return v
}

// htmlMessage builds a CRLF message of at least size bytes with an HTML body
// of at least three rows, shaped like a typical campaign email.
func htmlMessage(size int) []byte {
	var b bytes.Buffer
	b.WriteString("From: \"Herald News\" <news@mail.example.com>\r\n" +
		"To: Alice Example <alice@example.org>\r\n" +
		"Subject: Your  weekly\r\n digest, with a folded subject\r\n" +
		"Date: Tue, 14 Apr 2026 09:30:00 +0000\r\n" +
		"Message-ID: <0190f5c2-7d1e-7a3b-9c4d-123456789abc@mail.example.com>\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: text/html; charset=utf-8\r\n" +
		"Content-Transfer-Encoding: 8bit\r\n" +
		"List-Unsubscribe: <https://mail.example.com/u/abc123>\r\n" +
		"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" +
		"X-Herald-Email-Id: 42\r\n" +
		"\r\n" +
		"<!doctype html><html><body><table>\r\n")
	for i := 0; i < 3 || b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tr><td style=\"padding: 4px\">Item %d: something  worth reading</td></tr>\r\n", i)
	}
	b.WriteString("</table></body></html>\r\n")
	return b.Bytes()
}

// verify checks signed with go-msgauth, serving k's record as the only TXT
// record and only under the name RecordName gives.
func verify(t *testing.T, signed []byte, k dkim.Key) *msgauth.Verification {
	t.Helper()
	record := mustRecord(t, k)
	opts := &msgauth.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		if name != k.RecordName(testDomain) {
			return nil, errors.New("no such name: " + name)
		}
		return []string{record}, nil
	}}
	verifs, err := msgauth.VerifyWithOptions(bytes.NewReader(signed), opts)
	if err != nil || len(verifs) != 1 {
		t.Fatalf("VerifyWithOptions = %v, %v; want one verification", verifs, err)
	}
	return verifs[0]
}

func sign(t *testing.T, s *dkim.Signer, msg []byte) []byte {
	t.Helper()
	signed, err := s.Sign(testDomain, msg)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	if !bytes.HasPrefix(signed, []byte("DKIM-Signature:")) || !bytes.HasSuffix(signed, msg) {
		t.Fatalf("Sign did not prepend a DKIM-Signature field:\n%s", signed)
	}
	return signed
}

// replaceOnce edits a signed message, failing if old is absent.
func replaceOnce(t *testing.T, msg []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(msg, []byte(old)) {
		t.Fatalf("message does not contain %q", old)
	}
	return []byte(strings.Replace(string(msg), old, new, 1))
}
