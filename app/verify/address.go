package verify

import (
	"strings"

	"github.com/heraldmail/herald/app/apierr"
)

// NormalizeEmail is the form in which Herald stores and compares an
// address: trimmed and lower-cased.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// CheckEmail normalises an address and validates its syntax, reporting a
// failure at field.
func CheckEmail(v *apierr.Validation, field, raw string) string {
	email := NormalizeEmail(raw)
	if !ValidSyntax(email) {
		v.Add(field, "invalid_string", "Invalid email", raw)
	}
	return email
}
