package verify

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// checkDomain validates the domain of an address and returns it in A-label
// form, lower case. The checks on the raw text come first so that the
// common mistakes get a precise reason rather than a generic IDNA error.
func checkDomain(domain string) (string, error) {
	switch {
	case domain == "":
		return "", syntaxError("domain is empty")
	case strings.IndexFunc(domain, isSpaceOrControl) >= 0:
		return "", syntaxError("address contains whitespace or a control character")
	case domain[0] == '[':
		return "", syntaxError("IP address literals are not accepted as a domain")
	case domain[0] == '.' || domain[len(domain)-1] == '.':
		return "", syntaxError("domain starts or ends with a dot")
	case strings.Contains(domain, ".."):
		return "", syntaxError("domain has consecutive dots")
	}
	// The Lookup profile maps case and full-width forms, applies the STD3
	// rules (letters, digits, hyphens only) and rejects bad punycode.
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil {
		return "", syntaxError("domain is not a valid host name")
	}
	if err := checkHostname(ascii); err != nil {
		return "", err
	}
	return ascii, nil
}

func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// checkHostname checks an A-label host name against the DNS limits; the
// IDNA mapping may have changed the text (an ideographic full stop becomes
// a dot), so the dot rules are checked again here.
func checkHostname(host string) error {
	if len(host) > maxDomain {
		return syntaxError(fmt.Sprintf("domain is longer than %d characters", maxDomain))
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return syntaxError("domain has no dot")
	}
	for _, label := range labels {
		if err := checkLabel(label); err != nil {
			return err
		}
	}
	return checkTLD(labels[len(labels)-1])
}

func checkLabel(label string) error {
	switch {
	case label == "":
		return syntaxError("domain has an empty label")
	case len(label) > maxLabel:
		return syntaxError(fmt.Sprintf("domain label is longer than %d characters", maxLabel))
	case label[0] == '-' || label[len(label)-1] == '-':
		return syntaxError("domain label starts or ends with a hyphen")
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return syntaxError("domain is not a valid host name")
		}
	}
	return nil
}

// checkTLD rejects an all-numeric top-level domain, which is how a bare IP
// address (user@192.0.2.1) would otherwise slip through, and one-letter
// TLDs, which do not exist.
func checkTLD(tld string) error {
	if strings.Trim(tld, "0123456789") == "" {
		return syntaxError("top-level domain is numeric")
	}
	if len(tld) < 2 {
		return syntaxError("top-level domain is too short")
	}
	return nil
}
