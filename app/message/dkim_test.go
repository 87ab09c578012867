package message

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
)

// TestDKIMRoundTrip signs built messages with go-msgauth and verifies them
// against the public key record: the bytes must survive both the strict
// (simple) and the lenient (relaxed) canonicalisation unchanged.
func TestDKIMRoundTrip(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	record := "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(pub)
	lookup := func(name string) ([]string, error) {
		if name != "herald._domainkey.example.com" {
			return nil, fmt.Errorf("no TXT record for %s", name)
		}
		return []string{record}, nil
	}

	full := baseMessage()
	full.From.Name = "Zoë Sender"
	full.Subject = "Grüße — " + strings.Repeat("long subject ", 12)
	full.Headers = map[string]string{"X-Campaign": "c1", "X-Unicode": "ünïcode"}
	full.ListUnsubscribe = "https://example.com/u/token"
	full.HTML = "<p>" + strings.Repeat("Body text with trailing space \n", 50) + "</p>"
	full.Attachments = []Attachment{
		{Filename: "Résumé.pdf", ContentType: "application/pdf", Content: randomBytes(t, 3000)},
		{Filename: "logo.png", ContentType: "image/png", ContentID: "logo", Inline: true, Content: randomBytes(t, 500)},
	}
	// Folded off the name's line, and in RFC 2231 continuations.
	folded := baseMessage()
	folded.ListUnsubscribe = "https://mail.example.com/" + strings.Repeat("u", 45)
	folded.Attachments = []Attachment{{Filename: strings.Repeat("monthly statement ", 8) + ".pdf", ContentType: "application/pdf", Content: randomBytes(t, 300)}}
	for name, m := range map[string]Message{"simple": baseMessage(), "full": full, "folded": folded} {
		raw := mustBuild(t, m)
		for _, can := range []dkim.Canonicalization{dkim.CanonicalizationSimple, dkim.CanonicalizationRelaxed} {
			var signed bytes.Buffer
			err := dkim.Sign(&signed, bytes.NewReader(raw), &dkim.SignOptions{
				Domain: "example.com", Selector: "herald", Signer: key, Hash: crypto.SHA256,
				HeaderCanonicalization: can, BodyCanonicalization: can,
				HeaderKeys: []string{"From", "To", "Subject", "Date", "Message-ID", "MIME-Version",
					"Content-Type", "List-Unsubscribe", "List-Unsubscribe-Post", "X-Unicode"},
			})
			if err != nil {
				t.Fatalf("%s/%s: sign: %v", name, can, err)
			}
			vs, err := dkim.VerifyWithOptions(bytes.NewReader(signed.Bytes()), &dkim.VerifyOptions{LookupTXT: lookup})
			if err != nil || len(vs) != 1 {
				t.Fatalf("%s/%s: verify: %v (%d results)", name, can, err, len(vs))
			}
			if vs[0].Err != nil || vs[0].Domain != "example.com" {
				t.Errorf("%s/%s: verification failed: %v", name, can, vs[0].Err)
			}
		}
	}
}
