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
	Sort string `json:"s"`           // the sort column the cursor was made for
	Desc bool   `json:"d,omitempty"` // the direction it was made for
	Num  int64  `json:"n,omitempty"` // sort value when numeric (times)
	Str  string `json:"t,omitempty"` // sort value when text (email)
	ID   string `json:"i"`
}

// ErrBadCursor is returned for a cursor this server did not make.
var ErrBadCursor = errors.New("invalid cursor")

// Encode gives the opaque string handed to clients.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
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
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || c.ID == "" {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// likePattern turns a substring search into a LIKE pattern that matches the
// text literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}
