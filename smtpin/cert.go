package smtpin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// SelfSignedFile is the name, in the data directory, of the certificate
// the listener offers with STARTTLS when none is configured.
const SelfSignedFile = "inbound-tls.pem"

// LoadOrCreateCertificate returns the certificate and key kept in the PEM
// file at path, making a self-signed one for hostname first if the file
// does not exist. Sending servers use STARTTLS opportunistically and do not
// verify the certificate of an MX (RFC 7435), so a self-signed certificate
// still encrypts every bounce and reply; it is kept so that it stays the
// same across restarts. The file holds the private key: it is created
// readable by its owner only (0600).
func LoadOrCreateCertificate(path, hostname string) (tls.Certificate, error) {
	if _, err := os.Stat(path); err == nil {
		return tls.LoadX509KeyPair(path, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: hostname},
		DNSNames:     []string{hostname},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	data := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...)
	// Written whole under a temporary name, then renamed: a crash leaves
	// either no file or a complete one.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".inbound-tls-*")
	if err != nil {
		return tls.Certificate{}, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return tls.Certificate{}, err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return tls.Certificate{}, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return tls.Certificate{}, err
	}
	if err := tmp.Close(); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return tls.Certificate{}, fmt.Errorf("keep the inbound certificate: %w", err)
	}
	return tls.X509KeyPair(data, data)
}
