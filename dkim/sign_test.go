package dkim_test

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/heraldmail/herald/dkim"
)

func TestSignVerifies(t *testing.T) {
	for _, alg := range []dkim.Algorithm{dkim.RSA, dkim.Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			k := mustGenerate(t, alg)
			signed := sign(t, mustSigner(t, k), htmlMessage(2000))
			v := verify(t, signed, k)
			if v.Err != nil {
				t.Fatalf("verification failed: %v\n%s", v.Err, signed)
			}
			want := []string{"From", "From", "To", "To", "Subject", "Subject", "Date", "Date",
				"Message-ID", "Message-ID", "MIME-Version", "MIME-Version", "Content-Type", "Content-Type",
				"Content-Transfer-Encoding", "Content-Transfer-Encoding", "List-Unsubscribe",
				"List-Unsubscribe", "List-Unsubscribe-Post", "List-Unsubscribe-Post"}
			if v.Domain != testDomain || !slices.Equal(v.HeaderKeys, want) {
				t.Errorf("d=%q h=%v; want d=%q h=%v", v.Domain, v.HeaderKeys, testDomain, want)
			}
			for _, tag := range []string{"a=" + string(alg) + "-sha256;", "c=relaxed/relaxed;", "s=herald202604;"} {
				if !bytes.Contains(signed, []byte(tag)) {
					t.Errorf("signature lacks %q", tag)
				}
			}
		})
	}
}

func TestSignDetectsTampering(t *testing.T) {
	k := mustGenerate(t, dkim.Ed25519)
	signed := sign(t, mustSigner(t, k), htmlMessage(500))
	cases := map[string][2]string{
		"body":             {"Item 1:", "Item 9:"},
		"signed header":    {"To: Alice", "To: Mallory"},
		"From added above": {"\r\nFrom: ", "\r\nFrom: evil@example.net\r\nFrom: "},
		"From added below": {"\r\nTo: ", "\r\nFrom: evil@example.net\r\nTo: "},
		"Subject added":    {"\r\nTo: ", "\r\nSubject: Urgent\r\nTo: "},
		"extra body line":  {"</html>\r\n", "</html>\r\nP.S. click here\r\n"},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			if v := verify(t, replaceOnce(t, signed, edit[0], edit[1]), k); v.Err == nil {
				t.Fatal("tampered message still verifies")
			}
		})
	}
}

// Relaxed canonicalisation must tolerate what relays do to whitespace and to
// unsigned header fields.
func TestSignSurvivesRelayChanges(t *testing.T) {
	k := mustGenerate(t, dkim.Ed25519)
	signed := sign(t, mustSigner(t, k), htmlMessage(500))
	cases := map[string][2]string{
		"refolded subject":   {"Your  weekly\r\n digest", "Your weekly digest"},
		"body spaces":        {"something  worth", "something \t worth"},
		"trailing blanks":    {"</html>\r\n", "</html>  \r\n\r\n\r\n"},
		"header name case":   {"\r\nSubject:", "\r\nSUBJECT :"},
		"unsigned header":    {"X-Herald-Email-Id: 42", "X-Herald-Email-Id: 43"},
		"prepended Received": {"DKIM-Signature:", "Received: from relay\r\nDKIM-Signature:"},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			if v := verify(t, replaceOnce(t, signed, edit[0], edit[1]), k); v.Err != nil {
				t.Fatalf("verification failed: %v", v.Err)
			}
		})
	}
}

func TestSignRejects(t *testing.T) {
	s := mustSigner(t, mustGenerate(t, dkim.Ed25519))
	msg := htmlMessage(100)
	cases := []struct {
		name, domain string
		msg          []byte
		want         error
	}{
		{"no From", testDomain, replaceOnce(t, msg, "From:", "Sender:"), dkim.ErrFromField},
		{"two From", testDomain, replaceOnce(t, msg, "To:", "From:"), dkim.ErrFromField},
		{"From only in body", testDomain, []byte("To: a@b.c\r\n\r\nFrom: x@y.z\r\n"), dkim.ErrFromField},
		{"empty domain", "", msg, nil},
		{"header injection", "example.com;\r\nX-Evil: 1", msg, nil},
		{"trailing dot", "example.com.", msg, nil},
		{"no end of header", testDomain, []byte("From: a@b.c\r\nTo: d@e.f\r\n"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := s.Sign(c.domain, c.msg)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("Sign = %q, %v; want error %v", out, err, c.want)
			}
		})
	}
}

func TestHeaderIsPrefixOfSign(t *testing.T) {
	k := mustGenerate(t, dkim.Ed25519)
	s := mustSigner(t, k)
	msg := htmlMessage(300)
	field, err := s.Header(testDomain, msg)
	if err != nil {
		t.Fatal(err)
	}
	if v := verify(t, append([]byte(field), msg...), k); v.Err != nil {
		t.Fatalf("Header + message does not verify: %v", v.Err)
	}
}

// One Signer is shared by all delivery workers; run under -race.
func TestSignConcurrent(t *testing.T) {
	k := mustGenerate(t, dkim.RSA)
	s := mustSigner(t, k)
	msg := htmlMessage(3000)
	results := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			out, err := s.Sign(testDomain, msg)
			if err != nil {
				t.Error(err)
			}
			results[i] = out
		})
	}
	wg.Wait()
	for _, out := range results {
		if v := verify(t, out, k); v.Err != nil {
			t.Fatalf("concurrent signature does not verify: %v", v.Err)
		}
	}
}
