package dkim_test

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"testing"

	msgauth "github.com/emersion/go-msgauth/dkim"

	"github.com/heraldmail/herald/dkim"
)

const benchSize = 10 << 10 // a typical HTML campaign email

// BenchmarkSign measures Signer.Sign on a ~10 KB HTML message with RSA-2048;
// compare with BenchmarkMsgauthSign, go-msgauth's own Sign on the same input.
func BenchmarkSign(b *testing.B) { benchSign(b, dkim.RSA) }

func BenchmarkMsgauthSign(b *testing.B) { benchMsgauth(b, dkim.RSA) }

// The Ed25519 pair shows the per-message overhead more clearly, since the
// signature itself no longer dominates.
func BenchmarkSignEd25519(b *testing.B) { benchSign(b, dkim.Ed25519) }

func BenchmarkMsgauthSignEd25519(b *testing.B) { benchMsgauth(b, dkim.Ed25519) }

func benchSign(b *testing.B, alg dkim.Algorithm) {
	s := mustSigner(b, mustGenerate(b, alg))
	msg := htmlMessage(benchSize)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(testDomain, msg); err != nil {
			b.Fatal(err)
		}
	}
}

// benchMsgauth is the baseline: the key parsed once and the same options
// Signer uses, with go-msgauth's one-call API doing the rest.
func benchMsgauth(b *testing.B, alg dkim.Algorithm) {
	k := mustGenerate(b, alg)
	block, _ := pem.Decode(k.PrivatePEM)
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		b.Fatal(err)
	}
	msg := htmlMessage(benchSize)
	opts := &msgauth.SignOptions{
		Domain: testDomain, Selector: k.Selector, Signer: priv.(crypto.Signer), Hash: crypto.SHA256,
		HeaderCanonicalization: msgauth.CanonicalizationRelaxed,
		BodyCanonicalization:   msgauth.CanonicalizationRelaxed,
		HeaderKeys: []string{"From", "From", "To", "To", "Subject", "Subject", "Date", "Date",
			"Message-ID", "Message-ID", "MIME-Version", "MIME-Version", "Content-Type", "Content-Type",
			"Content-Transfer-Encoding", "Content-Transfer-Encoding", "List-Unsubscribe",
			"List-Unsubscribe", "List-Unsubscribe-Post", "List-Unsubscribe-Post"},
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		if err := msgauth.Sign(&out, bytes.NewReader(msg), opts); err != nil {
			b.Fatal(err)
		}
	}
}
