package verify

import (
	"fmt"
	"strings"
)

// Limits of RFC 5321 section 4.5.3.1 (the 254 total is the path limit of
// 256 less the angle brackets).
const (
	maxLocal   = 64
	maxAddress = 254
	maxDomain  = 253
	maxLabel   = 63
	// maxInput bounds the work done on hostile input before any other
	// check: a Unicode domain can take up to four bytes per character.
	maxInput = 4 * maxAddress
)

// address is a syntactically valid address, split for lookups.
type address struct {
	local  string // ASCII dot-atom, as given
	domain string // A-labels, lower case, no trailing dot
}

// syntaxError says in words why an address was rejected; the text goes
// into reasons after "Email address syntax is invalid: ".
type syntaxError string

func (e syntaxError) Error() string { return string(e) }

// ValidSyntax reports whether email is a practical RFC 5321/5322 address:
// a dot-atom local part of at most 64 characters, "@", and a host name with
// at least one dot, labels of at most 63 characters and an alphabetic
// top-level domain; at most 254 characters in all. Internationalised
// domain names are accepted and measured in their A-label (xn--) form.
// Quoted local parts, comments, domain literals ([192.0.2.1]), non-ASCII
// local parts and whitespace anywhere are rejected: they are legal in
// theory but almost never real, and most mail systems refuse them.
func ValidSyntax(email string) bool {
	_, err := parseAddress(email)
	return err == nil
}

func parseAddress(email string) (address, error) {
	if len(email) > maxInput {
		return address{}, syntaxError("address is too long")
	}
	switch strings.Count(email, "@") {
	case 0:
		return address{}, syntaxError("missing @")
	case 1:
	default:
		return address{}, syntaxError("more than one @")
	}
	local, domain, _ := strings.Cut(email, "@")
	if err := checkLocal(local); err != nil {
		return address{}, err
	}
	ascii, err := checkDomain(domain)
	if err != nil {
		return address{}, err
	}
	if len(local)+1+len(ascii) > maxAddress {
		return address{}, syntaxError(fmt.Sprintf("address is longer than %d characters", maxAddress))
	}
	return address{local: local, domain: ascii}, nil
}

func checkLocal(local string) error {
	switch {
	case local == "":
		return syntaxError("local part is empty")
	case len(local) > maxLocal:
		return syntaxError(fmt.Sprintf("local part is longer than %d characters", maxLocal))
	case local[0] == '.' || local[len(local)-1] == '.':
		return syntaxError("local part starts or ends with a dot")
	case strings.Contains(local, ".."):
		return syntaxError("local part has consecutive dots")
	}
	for i := 0; i < len(local); i++ {
		if err := checkLocalByte(local[i]); err != nil {
			return err
		}
	}
	return nil
}

func checkLocalByte(c byte) error {
	switch {
	case c == '.' || isAtext(c):
		return nil
	case c <= ' ' || c == 0x7f:
		return syntaxError("address contains whitespace or a control character")
	case c >= 0x80:
		return syntaxError("local part contains non-ASCII characters")
	default:
		return syntaxError(fmt.Sprintf("local part contains %q", c))
	}
}

// isAtext is RFC 5322's atext: the characters of a dot-atom besides dots.
func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}
