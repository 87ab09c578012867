package dkim_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/dkim"
)

// Every line of the DKIM-Signature field is at most 78 characters: h= with
// every signed field oversigned was one line of about 300 before, and b= of
// an RSA key is 344 characters.
func TestSignatureLinesAtMost78(t *testing.T) {
	for _, alg := range []dkim.Algorithm{dkim.RSA, dkim.Ed25519} {
		k := mustGenerate(t, alg)
		msg := "From: a@example.com\r\nTo: b@example.net\r\nCc: c@example.net\r\nSubject: s\r\n" +
			"Date: Mon, 02 Jan 2006 15:04:05 +0000\r\nMessage-ID: <x@example.com>\r\nReply-To: r@example.com\r\n" +
			"In-Reply-To: <y@example.com>\r\nReferences: <y@example.com>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain\r\nContent-Transfer-Encoding: 7bit\r\nList-Unsubscribe: <https://u.example/x>\r\n" +
			"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n\r\nhi\r\n"
		field, err := mustSigner(t, k).Header(testDomain, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(field, "\r\n"), "\r\n") {
			if len(line) > 78 {
				t.Errorf("%s: line of %d: %q", alg, len(line), line)
			}
		}
		if v := verify(t, []byte(field+msg), k); v.Err != nil {
			t.Fatalf("%s: %v\n%s", alg, v.Err, field)
		}
	}
}
