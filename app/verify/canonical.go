package verify

import "strings"

// CanonicalDomain returns a host name in the form Herald stores and
// compares: A-labels, lower case, no trailing dot. It applies the same
// rules as the domain of an address (a dot, labels of at most 63
// characters, an alphabetic top-level domain); the error says what is
// wrong in words.
func CanonicalDomain(name string) (string, error) {
	name = strings.TrimSuffix(strings.TrimSpace(name), ".")
	return checkDomain(name)
}

// AddressDomain returns the canonical domain of a syntactically valid
// address, and false for an invalid one.
func AddressDomain(email string) (string, bool) {
	addr, err := parseAddress(strings.TrimSpace(email))
	if err != nil {
		return "", false
	}
	return addr.domain, true
}
