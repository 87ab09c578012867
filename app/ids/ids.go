// Package ids makes Herald's identifiers and API keys.
package ids

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/google/uuid"
)

// newID returns a UUIDv7: unique, and ordered by creation time, which keeps
// index inserts at the right-hand edge of the B-tree.
func New() string { return uuid.Must(uuid.NewV7()).String() }

// Key prefixes. A key is a prefix and 64 lowercase hex characters (32 random bytes).
const (
	PublicKeyPrefix = "pk_"
	SecretKeyPrefix = "sk_"
)

func NewKey(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + hex.EncodeToString(b[:])
}

// WellFormedKey reports whether s has the shape of an API key of any kind.
func WellFormedKey(s string) bool {
	if len(s) != 3+64 || (s[:3] != PublicKeyPrefix && s[:3] != SecretKeyPrefix) {
		return false
	}
	for i := 3; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// randomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
