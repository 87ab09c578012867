package storage

import (
	"encoding/base64"
	"testing"
)

// A cursor round-trips, and one made before cursors had their own wire
// type (lower-case keys) still reads the same.
func TestCursorsRoundTripAndOldOnesStillRead(t *testing.T) {
	c := Cursor{Sort: "email", Desc: true, Num: 7, Str: "a@b.c", ID: "x"}
	got, err := DecodeCursor(c.Encode())
	if err != nil || *got != c {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	old := base64.RawURLEncoding.EncodeToString([]byte(`{"s":"createdAt","d":true,"n":42,"i":"id1"}`))
	got, err = DecodeCursor(old)
	if err != nil || *got != (Cursor{Sort: "createdAt", Desc: true, Num: 42, ID: "id1"}) {
		t.Fatalf("old cursor: %+v %v", got, err)
	}
}
