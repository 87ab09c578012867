package dkim

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
)

// maxTXTString is the longest character-string a TXT record can hold; longer
// values are published as several strings that resolvers join back.
const maxTXTString = 255

// RecordName is the DNS name the public key is published under.
func (k Key) RecordName(domain string) string {
	return k.Selector + "._domainkey." + domain
}

// RecordValue is the TXT record text publishing k's public key. RSA keys are
// given as a SubjectPublicKeyInfo (RFC 6376 §3.6.1), Ed25519 keys as the raw
// 32 bytes (RFC 8463 §4).
func (k Key) RecordValue() (string, error) {
	alg, pub, err := k.publicKey()
	if err != nil {
		return "", err
	}
	der, err := encodePublicKey(pub)
	if err != nil {
		return "", err
	}
	return "v=DKIM1; k=" + string(alg) + "; p=" + base64.StdEncoding.EncodeToString(der), nil
}

// TXTStrings splits a record value into the character-strings of one TXT
// record, for zone files and DNS APIs that do not split long values
// themselves (an RSA-2048 record is about 410 bytes).
func TXTStrings(value string) []string {
	var out []string
	for len(value) > maxTXTString {
		out = append(out, value[:maxTXTString])
		value = value[maxTXTString:]
	}
	return append(out, value)
}

func (k Key) publicKey() (Algorithm, crypto.PublicKey, error) {
	alg, priv, err := k.privateKey()
	if err != nil {
		return "", nil, err
	}
	return alg, priv.Public(), nil
}

func encodePublicKey(pub crypto.PublicKey) ([]byte, error) {
	switch pub := pub.(type) {
	case ed25519.PublicKey:
		return pub, nil
	case *rsa.PublicKey:
		return x509.MarshalPKIXPublicKey(pub)
	}
	return nil, fmt.Errorf("dkim: unexpected public key %T", pub)
}

// RecordMatches reports whether published, the joined text of a TXT record,
// publishes k's public key in a form verifiers will use to check Herald's
// signatures: a DKIM1 record (if v= is given), of k's key type, not revoked,
// and not restricted (h=, s=) in a way that excludes sha256 email signing.
// Tag order and whitespace do not matter, as in RFC 6376 §3.2.
func RecordMatches(published string, k Key) bool {
	alg, ours, err := k.publicKey()
	if err != nil {
		return false
	}
	tags, ok := parseTags(published)
	if !ok || !usableRecord(tags, alg) {
		return false
	}
	theirs, ok := parsePublishedKey(alg, tags["p"])
	if !ok {
		return false
	}
	eq, ok := ours.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(theirs)
}

// usableRecord checks the tags other than p=. Values are compared exactly
// (not case-folded) because that is how common verifiers, go-msgauth among
// them, read them: a record they would reject must not count as published.
func usableRecord(tags map[string]string, alg Algorithm) bool {
	if v, ok := tags["v"]; ok && v != "DKIM1" {
		return false
	}
	k, ok := tags["k"]
	if !ok {
		k = string(RSA) // RFC 6376 §3.6.1: k= defaults to rsa
	}
	if k != string(alg) {
		return false
	}
	if h, ok := tags["h"]; ok && !slices.Contains(splitList(h), "sha256") {
		return false
	}
	if s, ok := tags["s"]; ok {
		services := splitList(s)
		return slices.Contains(services, "email") || slices.Contains(services, "*")
	}
	return true
}

// parsePublishedKey decodes p=. An empty p= means the key was revoked. RSA
// keys are accepted as SubjectPublicKeyInfo or bare RSAPublicKey, since
// RFC 6376 is ambiguous (erratum 3017) and verifiers accept both.
func parsePublishedKey(alg Algorithm, p string) (crypto.PublicKey, bool) {
	der, err := base64.StdEncoding.DecodeString(stripSpace(p))
	if err != nil || len(der) == 0 {
		return nil, false
	}
	if alg == Ed25519 {
		return ed25519.PublicKey(der), len(der) == ed25519.PublicKeySize
	}
	if pub, err := x509.ParsePKIXPublicKey(der); err == nil {
		return pub, true
	}
	pub, err := x509.ParsePKCS1PublicKey(der)
	return pub, err == nil
}

// parseTags reads a tag=value list (RFC 6376 §3.2). A malformed list, or one
// naming a tag twice, is invalid as a whole, as the RFC requires.
func parseTags(s string) (map[string]string, bool) {
	tags := make(map[string]string)
	for spec := range strings.SplitSeq(s, ";") {
		if isSpace(spec) {
			continue // empty spec, e.g. after a trailing ";"
		}
		name, value, ok := strings.Cut(spec, "=")
		name = trimSpace(name)
		if _, dup := tags[name]; !ok || name == "" || dup {
			return nil, false
		}
		tags[name] = trimSpace(value)
	}
	return tags, true
}

// splitList splits a colon-separated tag value such as h=sha1:sha256.
func splitList(v string) []string {
	items := strings.Split(v, ":")
	for i := range items {
		items[i] = trimSpace(items[i])
	}
	return items
}

// DKIM's folding whitespace is SP, HTAB and CRLF only.
const fws = " \t\r\n"

func trimSpace(s string) string { return strings.Trim(s, fws) }

func isSpace(s string) bool { return trimSpace(s) == "" }

// stripSpace removes folding whitespace inside a base64 value, which the RFC
// allows and which appears when a record's strings are joined with spaces.
func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(fws, r) {
			return -1
		}
		return r
	}, s)
}
