package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/heraldmail/herald/smtpin"
)

func inboundTLSFlags(fs *pflag.FlagSet, c *config) {
	fs.StringVar(&c.InboundTLSCert, "inbound-tls-cert", "", "PEM certificate (chain) the inbound listener offers with STARTTLS; default: a self-signed one kept in the data dir")
	fs.StringVar(&c.InboundTLSKey, "inbound-tls-key", "", "PEM private key of --inbound-tls-cert")
}

// inboundTLS is the STARTTLS configuration of the inbound listener: the
// configured certificate, else the self-signed one made at first start and
// kept in the data directory.
func inboundTLS(c *config) (*tls.Config, error) {
	var cert tls.Certificate
	var err error
	switch {
	case c.InboundTLSCert != "" || c.InboundTLSKey != "":
		if c.InboundTLSCert == "" || c.InboundTLSKey == "" {
			return nil, errors.New("HERALD_INBOUND_TLS_CERT and HERALD_INBOUND_TLS_KEY go together")
		}
		cert, err = tls.LoadX509KeyPair(c.InboundTLSCert, c.InboundTLSKey)
	default:
		cert, err = smtpin.LoadOrCreateCertificate(filepath.Join(c.DataDir, smtpin.SelfSignedFile), inboundName(c))
	}
	if err != nil {
		return nil, fmt.Errorf("inbound TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
