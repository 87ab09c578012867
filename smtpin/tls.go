package smtpin

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// LoadTLS returns a listener's TLS configuration: the certificate chain
// and key in certFile and keyFile when they are given (both or neither),
// else the self-signed certificate kept at selfSigned, made for hostname
// on first use (LoadOrCreateCertificate). The inbound and the submission
// listeners share that file (SelfSignedFile in the data directory).
func LoadTLS(certFile, keyFile, selfSigned, hostname string) (*tls.Config, error) {
	var cert tls.Certificate
	var err error
	switch {
	case certFile != "" || keyFile != "":
		if certFile == "" || keyFile == "" {
			return nil, errors.New("a TLS certificate and its key go together: give both files or neither")
		}
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	default:
		cert, err = LoadOrCreateCertificate(selfSigned, hostname)
	}
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
