// Package paging is the cursor page app's list methods answer with, and
// the rules of its limit and cursor. It is a leaf package (over storage's
// cursors and app/apierr) so that app's sub-packages page alike; app
// re-exports it under its old names.
package paging

import (
	"errors"

	"github.com/heraldmail/herald/app/apierr"

	"github.com/heraldmail/herald/storage"
)

// Page is one page of a cursor list: {data, cursor, hasMore, total}.
// Total is counted on the first page only and is 0 on later pages, as the
// spec says, which spares a count on every page turn.
type Page[T any] struct {
	Data    []T    `json:"data"`
	Cursor  string `json:"cursor"`
	HasMore bool   `json:"hasMore"`
	Total   int    `json:"total"`
}

// List limits.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ClampLimit applies the list limit rules: 0 means the default, and any
// other value is clamped to 1..100.
func ClampLimit(n int, given bool) int {
	switch {
	case !given:
		return DefaultLimit
	case n < 1:
		return 1
	case n > MaxLimit:
		return MaxLimit
	}
	return n
}

// DecodeCursor reads a page cursor; a bad one is the client's error.
func DecodeCursor(s string) (*storage.Cursor, error) {
	c, err := storage.DecodeCursor(s)
	if errors.Is(err, storage.ErrBadCursor) {
		return nil, apierr.BadRequest("Invalid cursor: pass the cursor of the previous page unchanged")
	}
	return c, err
}

// Paginate trims a result fetched with limit+1 rows to a page.
func Paginate[T any](rows []T, limit int, cursorOf func(T) storage.Cursor) Page[T] {
	p := Page[T]{Data: rows}
	if p.Data == nil {
		p.Data = []T{}
	}
	if len(rows) > limit {
		p.Data, p.HasMore = rows[:limit], true
		p.Cursor = cursorOf(rows[limit-1]).Encode()
	}
	return p
}

// Map turns a page of storage rows into a page of the API's views.
func Map[T, V any](p Page[T], view func(T) V) Page[V] {
	return Page[V]{Data: Views(p.Data, view), Cursor: p.Cursor, HasMore: p.HasMore, Total: p.Total}
}

// Views turns rows into the API's views, never nil.
func Views[T, V any](rows []T, view func(T) V) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = view(r)
	}
	return out
}
