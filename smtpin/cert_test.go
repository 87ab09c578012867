package smtpin_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
)

func TestSelfSignedCertificateKeptInDataDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), smtpin.SelfSignedFile)
	first, err := smtpin.LoadOrCreateCertificate(path, "mx.herald.test")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600: the file holds the private key", fi.Mode().Perm())
	}
	leaf, err := x509.ParseCertificate(first.Certificate[0])
	if err != nil || leaf.VerifyHostname("mx.herald.test") != nil {
		t.Fatalf("certificate for %v: %v", leaf.DNSNames, err)
	}
	again, err := smtpin.LoadOrCreateCertificate(path, "mx.herald.test")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Certificate[0], again.Certificate[0]) {
		t.Error("a second start made a new certificate instead of keeping the first")
	}
}

func TestListenerOffersSTARTTLS(t *testing.T) {
	cert, err := smtpin.LoadOrCreateCertificate(filepath.Join(t.TempDir(), "c.pem"), "mx.herald.test")
	if err != nil {
		t.Fatal(err)
	}
	mb, addr := start(t, smtpin.Config{Hostname: "mx.herald.test",
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	plain := dial(t, addr)
	if ok, _ := plain.Extension("STARTTLS"); !ok {
		t.Fatal("STARTTLS not offered")
	}
	c, err := smtp.DialStartTLS(addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.TLSConnectionState(); !ok {
		t.Fatal("not encrypted after STARTTLS")
	}
	if err := c.Mail("", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("ok@bounce.herald.test", nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("Subject: x\r\n\r\nhi\r\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(mb.deliveries()) != 1 {
		t.Fatal("message over TLS not delivered")
	}
}
