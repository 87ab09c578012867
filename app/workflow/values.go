package workflow

import "github.com/google/uuid"

// Contact and event data are read and written with app/jsondata, as app
// does, so that numbers compare alike on both sides.

func newID() string { return uuid.Must(uuid.NewV7()).String() }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
