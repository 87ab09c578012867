package dkim

import (
	"crypto"
	"fmt"
	"time"
)

// Signer signs messages with one key. It holds the parsed private key, so the
// PEM is decoded once rather than per message, and it is safe for concurrent
// use: nothing in it changes after Key.Signer returns it.
type Signer struct {
	selector string
	key      crypto.Signer
}

// Signer parses k's private key for signing.
func (k Key) Signer() (*Signer, error) {
	if !validHostname(k.Selector) {
		return nil, fmt.Errorf("dkim: invalid selector %q", k.Selector)
	}
	_, priv, err := k.privateKey()
	if err != nil {
		return nil, err
	}
	return &Signer{selector: k.Selector, key: priv}, nil
}

// Sign returns message (CRLF-terminated RFC 5322 bytes) with a
// DKIM-Signature field for domain prepended. The message must have exactly
// one From field (ErrFromField otherwise) and a header ending in an empty
// line; domain must be an ASCII host name (IDNs as xn-- labels). It copies
// the message once, into a buffer sized for the result.
func (s *Signer) Sign(domain string, message []byte) ([]byte, error) {
	field, err := s.Header(domain, message)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(field)+len(message))
	out = append(out, field...)
	return append(out, message...), nil
}

// Header returns only the DKIM-Signature field (name, value, final CRLF) for
// message, for callers that write it ahead of the message themselves and so
// avoid copying the message at all.
//
// Canonicalisation is relaxed/relaxed, which survives the whitespace and
// line-folding changes relays commonly make; the hash is sha256.
func (s *Signer) Header(domain string, message []byte) (string, error) {
	if !validHostname(domain) {
		return "", fmt.Errorf("dkim: invalid signing domain %q", domain)
	}
	keys, err := headerKeys(message)
	if err != nil {
		return "", err
	}
	return s.relaxedSign(domain, keys, message, time.Now())
}
