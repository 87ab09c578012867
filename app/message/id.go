package message

import (
	"crypto/rand"
	"strings"

	"golang.org/x/net/idna"
)

// NewMessageID returns "<random@domain>" with 128 random bits, so ids never
// collide across processes or restarts. The domain is lower-cased and an IDN
// converted to A-labels, since Message-ID must be ASCII; an unusable domain
// falls back to "localhost" rather than produce a malformed id.
func NewMessageID(domain string) string {
	return "<" + strings.ToLower(rand.Text()) + "@" + idDomain(domain) + ">"
}

func idDomain(domain string) string {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if !plainASCII(d) {
		ascii, err := idna.Lookup.ToASCII(d)
		if err != nil {
			return "localhost"
		}
		d = ascii
	}
	if d == "" || !validURI(d) || strings.ContainsAny(d, "@\"()[]\\,;:") {
		return "localhost"
	}
	return d
}

// asciiEmail writes an IDN domain of an address as A-labels, so that the
// header stays 7-bit for receivers without SMTPUTF8. The local part is left
// as it is: it has no ASCII form.
func asciiEmail(email string) string {
	at := strings.LastIndexByte(email, '@')
	domain := email[at+1:]
	if plainASCII(domain) {
		return email
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil {
		return email
	}
	return email[:at+1] + ascii
}
