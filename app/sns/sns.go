// Package sns checks the messages Amazon SNS delivers to an HTTPS
// endpoint: their shape, where their signing certificate may come from,
// and their signature. It knows nothing of SES or of Herald's emails, and
// fetches nothing: the caller fetches the certificate from the URL this
// package has approved.
package sns

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Message types.
const (
	TypeNotification             = "Notification"
	TypeSubscriptionConfirmation = "SubscriptionConfirmation"
	TypeUnsubscribeConfirmation  = "UnsubscribeConfirmation"
)

// Message is the JSON document SNS posts.
type Message struct {
	Type             string  `json:"Type"`
	MessageID        string  `json:"MessageId"`
	Token            string  `json:"Token"`
	TopicArn         string  `json:"TopicArn"`
	Subject          *string `json:"Subject"` // signed only when present
	Message          string  `json:"Message"`
	Timestamp        string  `json:"Timestamp"`
	SignatureVersion string  `json:"SignatureVersion"`
	Signature        string  `json:"Signature"`
	SigningCertURL   string  `json:"SigningCertURL"`
	SubscribeURL     string  `json:"SubscribeURL"`
	UnsubscribeURL   string  `json:"UnsubscribeURL"`
}

// ErrMalformed is a body that is not an SNS message.
var ErrMalformed = errors.New("sns: malformed message")

// ErrUntrusted is a message whose signature cannot be trusted: a bad
// signature, or a certificate from anywhere but SNS.
var ErrUntrusted = errors.New("sns: untrusted message")

// Parse reads a message and checks that the fields its signature covers
// are present.
func Parse(body []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := m.StringToSign(); err != nil {
		return nil, err
	}
	if m.Signature == "" || m.SigningCertURL == "" {
		return nil, fmt.Errorf("%w: no signature", ErrMalformed)
	}
	return &m, nil
}

// StringToSign is the canonical text SNS signs: "Name\nvalue\n" for each
// of the type's fields, in the documented order.
func (m *Message) StringToSign() (string, error) {
	var b strings.Builder
	add := func(name, value string) { b.WriteString(name + "\n" + value + "\n") }
	switch m.Type {
	case TypeNotification:
		add("Message", m.Message)
		add("MessageId", m.MessageID)
		if m.Subject != nil {
			add("Subject", *m.Subject)
		}
		add("Timestamp", m.Timestamp)
		add("TopicArn", m.TopicArn)
		add("Type", m.Type)
	case TypeSubscriptionConfirmation, TypeUnsubscribeConfirmation:
		add("Message", m.Message)
		add("MessageId", m.MessageID)
		add("SubscribeURL", m.SubscribeURL)
		add("Timestamp", m.Timestamp)
		add("Token", m.Token)
		add("TopicArn", m.TopicArn)
		add("Type", m.Type)
	default:
		return "", fmt.Errorf("%w: type %q", ErrMalformed, m.Type)
	}
	if m.MessageID == "" || m.Timestamp == "" || m.TopicArn == "" {
		return "", fmt.Errorf("%w: missing MessageId, Timestamp or TopicArn", ErrMalformed)
	}
	return b.String(), nil
}

// certHost is the host of SNS signing certificates: sns.<region>.amazonaws.com.
var certHost = regexp.MustCompile(`^sns\.[a-z0-9-]+\.amazonaws\.com$`)

// CheckCertURL accepts only an https URL on an SNS host, so a forger
// cannot sign with a certificate of their own.
func CheckCertURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" ||
		!certHost.MatchString(u.Hostname()) || !strings.HasSuffix(u.Path, ".pem") {
		return fmt.Errorf("%w: signing certificate URL %q is not on SNS", ErrUntrusted, raw)
	}
	return nil
}

// CheckSubscribeURL accepts only an https URL on an AWS host: confirming a
// subscription is a GET that Herald makes on a stranger's say-so.
func CheckSubscribeURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" ||
		!strings.HasSuffix(u.Hostname(), ".amazonaws.com") {
		return fmt.Errorf("%w: subscribe URL %q is not on AWS", ErrMalformed, raw)
	}
	return nil
}

// ParseCertificate reads a PEM signing certificate holding an RSA key.
// The caller checks its validity period against its own clock.
func ParseCertificate(pemBytes []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("sns: signing certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("sns: signing certificate: %w", err)
	}
	if _, ok := cert.PublicKey.(*rsa.PublicKey); !ok {
		return nil, errors.New("sns: signing certificate has no RSA key")
	}
	return cert, nil
}

// Verify checks the message's signature with the certificate's key:
// SignatureVersion 1 is SHA1withRSA, 2 is SHA256withRSA.
func (m *Message) Verify(cert *x509.Certificate) error {
	key, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return errors.New("sns: signing certificate has no RSA key")
	}
	text, err := m.StringToSign()
	if err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil {
		return fmt.Errorf("%w: signature is not base64", ErrUntrusted)
	}
	hash, digest, err := digest(m.SignatureVersion, text)
	if err != nil {
		return err
	}
	if err := rsa.VerifyPKCS1v15(key, hash, digest, sig); err != nil {
		return fmt.Errorf("%w: bad signature", ErrUntrusted)
	}
	return nil
}

func digest(version, text string) (crypto.Hash, []byte, error) {
	switch version {
	case "1":
		d := sha1.Sum([]byte(text))
		return crypto.SHA1, d[:], nil
	case "2":
		d := sha256.Sum256([]byte(text))
		return crypto.SHA256, d[:], nil
	}
	return 0, nil, fmt.Errorf("%w: signature version %q", ErrUntrusted, version)
}
