// Package dkim generates DKIM keys, renders the DNS record that publishes
// them, checks a published record against a stored key, and signs outgoing
// messages (RFC 6376, with Ed25519 per RFC 8463).
//
// Everything here is a pure function of its arguments, apart from the
// randomness used to generate keys, so the package holds no state and needs
// no clock or resolver: callers look records up and pass the text in.
package dkim

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// Algorithm is a DKIM key type, spelled as in the record's k= tag.
type Algorithm string

const (
	RSA     Algorithm = "rsa"
	Ed25519 Algorithm = "ed25519"
)

// rsaBits is the size of generated RSA keys: what RFC 8301 asks signers for.
// Larger keys sign several times slower and make TXT records that some DNS
// hosting panels truncate.
const rsaBits = 2048

// minRSABits is the smallest RSA key verifiers accept (RFC 8301 §3.2).
const minRSABits = 1024

// ErrUnsupportedAlgorithm is returned for an Algorithm other than RSA,
// Ed25519 or "" (which means RSA).
var ErrUnsupportedAlgorithm = errors.New("dkim: unsupported key algorithm")

// normalize maps the zero value to the default, so that a Key stored without
// an algorithm behaves as RSA everywhere.
func (a Algorithm) normalize() (Algorithm, error) {
	switch a {
	case "", RSA:
		return RSA, nil
	case Ed25519:
		return Ed25519, nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnsupportedAlgorithm, string(a))
}

// Key is a signing key as stored in the database.
type Key struct {
	Algorithm  Algorithm
	Selector   string
	PrivatePEM []byte // PKCS#8, PEM type "PRIVATE KEY"
}

// Generate creates a key for selector. An empty alg means RSA-2048.
func Generate(alg Algorithm, selector string) (Key, error) {
	alg, err := alg.normalize()
	if err != nil {
		return Key{}, err
	}
	if !validHostname(selector) {
		return Key{}, fmt.Errorf("dkim: invalid selector %q", selector)
	}
	priv, err := newPrivateKey(alg)
	if err != nil {
		return Key{}, fmt.Errorf("dkim: generating %s key: %w", alg, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return Key{}, fmt.Errorf("dkim: encoding key: %w", err)
	}
	block := &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	return Key{Algorithm: alg, Selector: selector, PrivatePEM: pem.EncodeToMemory(block)}, nil
}

func newPrivateKey(alg Algorithm) (crypto.Signer, error) {
	if alg == Ed25519 {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, err
	}
	return rsa.GenerateKey(rand.Reader, rsaBits)
}

// NewSelector names a key after the month of t ("herald202604"), so that a
// rotated key gets a fresh DNS name while the old record stays published for
// mail still in flight. The month is taken in UTC, so the same instant gives
// the same selector whatever the server's time zone.
func NewSelector(t time.Time) string {
	return "herald" + t.UTC().Format("200601")
}

// privateKey decodes the PEM and checks that it holds the kind of key the
// Algorithm says, of a size verifiers accept. It also returns the Algorithm
// with the default filled in.
func (k Key) privateKey() (Algorithm, crypto.Signer, error) {
	alg, err := k.Algorithm.normalize()
	if err != nil {
		return "", nil, err
	}
	block, _ := pem.Decode(k.PrivatePEM)
	if block == nil || block.Type != "PRIVATE KEY" {
		return "", nil, errors.New("dkim: private key is not a PKCS#8 PEM block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return "", nil, fmt.Errorf("dkim: parsing private key: %w", err)
	}
	priv, err := checkKind(alg, parsed)
	return alg, priv, err
}

func checkKind(alg Algorithm, parsed any) (crypto.Signer, error) {
	switch priv := parsed.(type) {
	case *rsa.PrivateKey:
		if alg != RSA {
			break
		}
		if priv.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("dkim: RSA key of %d bits is too short", priv.N.BitLen())
		}
		return priv, nil
	case ed25519.PrivateKey:
		if alg == Ed25519 {
			return priv, nil
		}
	}
	return nil, fmt.Errorf("dkim: private key is %T, not %s", parsed, alg)
}
