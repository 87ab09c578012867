package paging

import (
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
)

// MaxSearch bounds a list's search text. SQLite refuses a LIKE pattern
// over 50,000 bytes with an error (a 100,000-character search answered
// 500), and no name, subject or address is longer than this anyway.
const MaxSearch = 256

// checkSearch refuses a search text over MaxSearch characters.
func CheckSearch(s string) error {
	if utf8.RuneCountInString(s) > MaxSearch {
		return apierr.Invalid(apierr.FieldError{Field: "search", Code: "too_big",
			Message: "Search text must be at most 256 characters", Received: len(s)})
	}
	return nil
}
