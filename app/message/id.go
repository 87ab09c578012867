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
