package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Cursor marks the last row of a page in keyset pagination: the value of
// the sort column and the id that breaks ties. Because the next page starts
// strictly after this position rather than at an offset, rows added or
// deleted between pages neither repeat nor skip rows.
type Cursor struct {
	Sort string // the sort column the cursor was made for
	Desc bool   // the direction it was made for
	Num  int64  // sort value when numeric (times)
	Str  string // sort value when text (email)
	ID   string
}

// cursorWire is a cursor as clients hold it: short keys. Decoding matches
// keys regardless of case, so the lower-case keys of cursors made before
// this type read the same.
type cursorWire struct {
	S string
	D bool
	N int64
	T string
	I string
}

// ErrBadCursor is returned for a cursor this server did not make.
var ErrBadCursor = errors.New("invalid cursor")

// Encode gives the opaque string handed to clients.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(cursorWire{S: c.Sort, D: c.Desc, N: c.Num, T: c.Str, I: c.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a client's cursor; "" means the first page.
func DecodeCursor(s string) (_ *Cursor, err error) {
	defer wrap(&err, "DecodeCursor")
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var w cursorWire
	if err := json.Unmarshal(b, &w); err != nil || w.I == "" {
		return nil, ErrBadCursor
	}
	return &Cursor{Sort: w.S, Desc: w.D, Num: w.N, Str: w.T, ID: w.I}, nil
}

// likePattern turns a substring search into a LIKE pattern that matches the
// text literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}
