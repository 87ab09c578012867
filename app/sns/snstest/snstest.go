// Package snstest plays Amazon SNS for tests: it makes a signing key and a
// self-signed certificate, signs messages as SNS does, and serves the
// certificate and subscription URLs through an app.Fetcher-shaped Fetch,
// so that no test needs the internet.
package snstest

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/sns"
)

// CertURL is where the SNS of these tests keeps its certificate.
const CertURL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem"

// SNS signs messages and answers fetches.
type SNS struct {
	Key     *rsa.PrivateKey
	CertPEM []byte

	mu      sync.Mutex
	fetched []string
}

// New makes a key and a certificate valid for a day either side of now.
func New(t testing.TB, now time.Time) *SNS {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sns.amazonaws.com"},
		NotBefore: now.Add(-24 * time.Hour), NotAfter: now.Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &SNS{Key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// Fetch serves the certificate at CertURL and an empty 200 anywhere else
// (a subscription confirmation), remembering every URL.
func (s *SNS) Fetch(_ context.Context, url string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fetched = append(s.fetched, url)
	if url == CertURL {
		return s.CertPEM, nil
	}
	return []byte("<ConfirmSubscriptionResponse/>"), nil
}

// Fetched lists the URLs fetched so far.
func (s *SNS) Fetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.fetched...)
}

// Sign fills in the certificate URL and signs m with the version ("1" or
// "2"), as SNS does.
func (s *SNS) Sign(t testing.TB, m *sns.Message, version string) {
	t.Helper()
	m.SignatureVersion, m.SigningCertURL = version, CertURL
	text, err := m.StringToSign()
	if err != nil {
		t.Fatal(err)
	}
	hash, digest := crypto.SHA256, sha256.Sum256([]byte(text))
	sum := digest[:]
	if version == "1" {
		d := sha1.Sum([]byte(text))
		hash, sum = crypto.SHA1, d[:]
	}
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.Key, hash, sum)
	if err != nil {
		t.Fatal(err)
	}
	m.Signature = base64.StdEncoding.EncodeToString(sig)
}

// Notification is a signed Notification carrying message (JSON-encoded
// unless it is a string).
func (s *SNS) Notification(t testing.TB, message any) []byte {
	t.Helper()
	text, ok := message.(string)
	if !ok {
		b, err := json.Marshal(message)
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	m := &sns.Message{Type: sns.TypeNotification, MessageID: fmt.Sprintf("msg-%d", time.Now().UnixNano()),
		TopicArn: "arn:aws:sns:eu-west-1:123456789012:herald", Message: text,
		Timestamp: "2026-01-15T12:00:00.000Z"}
	s.Sign(t, m, "2")
	return Marshal(t, m)
}

// Marshal encodes a message as SNS posts it.
func Marshal(t testing.TB, m *sns.Message) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
