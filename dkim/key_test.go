package dkim_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/dkim"
)

func TestGenerate(t *testing.T) {
	cases := []struct {
		alg, want dkim.Algorithm
	}{{"", dkim.RSA}, {dkim.RSA, dkim.RSA}, {dkim.Ed25519, dkim.Ed25519}}
	for _, c := range cases {
		t.Run("alg="+string(c.alg), func(t *testing.T) {
			k := mustGenerate(t, c.alg)
			if k.Algorithm != c.want || k.Selector != "herald202604" {
				t.Fatalf("got %q/%q; want %q/herald202604", k.Algorithm, k.Selector, c.want)
			}
			block, rest := pem.Decode(k.PrivatePEM)
			if block == nil || block.Type != "PRIVATE KEY" || len(rest) != 0 {
				t.Fatalf("PrivatePEM is not one PKCS#8 block:\n%s", k.PrivatePEM)
			}
			priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			checkKeyKind(t, c.want, priv)
		})
	}
}

func checkKeyKind(t *testing.T, alg dkim.Algorithm, priv any) {
	t.Helper()
	switch priv := priv.(type) {
	case *rsa.PrivateKey:
		if alg != dkim.RSA || priv.N.BitLen() != 2048 {
			t.Fatalf("got RSA-%d for %q", priv.N.BitLen(), alg)
		}
	case ed25519.PrivateKey:
		if alg != dkim.Ed25519 {
			t.Fatalf("got ed25519 for %q", alg)
		}
	default:
		t.Fatalf("unexpected key %T", priv)
	}
}

func TestGenerateRejects(t *testing.T) {
	if _, err := dkim.Generate("dsa", "s1"); !errors.Is(err, dkim.ErrUnsupportedAlgorithm) {
		t.Errorf("Generate(dsa) = %v; want ErrUnsupportedAlgorithm", err)
	}
	for _, sel := range []string{"", "bad selector", "s1;x=y", "-s1", "s1."} {
		if _, err := dkim.Generate(dkim.Ed25519, sel); err == nil {
			t.Errorf("Generate(selector %q) succeeded", sel)
		}
	}
}

func TestNewSelector(t *testing.T) {
	east := time.FixedZone("UTC+14", 14*3600)
	cases := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 4, 14, 9, 0, 0, 0, time.UTC), "herald202604"},
		{time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), "herald202612"},
		// Already May in Kiribati, still April in UTC: the instant decides.
		{time.Date(2026, 5, 1, 3, 0, 0, 0, east), "herald202604"},
	}
	for _, c := range cases {
		got := dkim.NewSelector(c.t)
		if got != c.want {
			t.Errorf("NewSelector(%v) = %q; want %q", c.t, got, c.want)
		}
		if _, err := dkim.Generate(dkim.Ed25519, got); err != nil {
			t.Errorf("selector %q is not accepted by Generate: %v", got, err)
		}
	}
}

func TestSignerRejectsBadKeys(t *testing.T) {
	rsaKey := mustGenerate(t, dkim.RSA)
	edKey := mustGenerate(t, dkim.Ed25519)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte{0x30, 0}})
	cases := map[string]dkim.Key{
		"algorithm mismatch": {Algorithm: dkim.Ed25519, Selector: "s1", PrivatePEM: rsaKey.PrivatePEM},
		"rsa label, ed key":  {Algorithm: "", Selector: "s1", PrivatePEM: edKey.PrivatePEM},
		"unknown algorithm":  {Algorithm: "dsa", Selector: "s1", PrivatePEM: rsaKey.PrivatePEM},
		"not PEM":            {Algorithm: dkim.RSA, Selector: "s1", PrivatePEM: []byte("hello")},
		"PKCS#1 PEM":         {Algorithm: dkim.RSA, Selector: "s1", PrivatePEM: pkcs1},
		"bad selector":       {Algorithm: dkim.RSA, Selector: "s 1", PrivatePEM: rsaKey.PrivatePEM},
	}
	for name, k := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := k.Signer(); err == nil {
				t.Fatal("Signer succeeded")
			}
			if _, err := k.RecordValue(); err == nil && name != "bad selector" {
				t.Fatal("RecordValue succeeded")
			}
		})
	}
}

func TestShortRSAKeyRefused(t *testing.T) {
	// Go itself refuses keys under 1024 bits unless told otherwise; an
	// operator could, and Herald must still not sign with one.
	t.Setenv("GODEBUG", "rsa1024min=0")
	priv, err := rsa.GenerateKey(rand.Reader, 512)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	k := dkim.Key{Selector: "s1", PrivatePEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})}
	if _, err := k.Signer(); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("Signer = %v; want a too-short error", err)
	}
}
