package app

import (
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/storage"
)

// Page is one page of a cursor list: {data, cursor, hasMore, total}
// (app/paging's, shared with app's sub-packages).
type Page[T any] = paging.Page[T]

// List limits.
const (
	DefaultLimit = paging.DefaultLimit
	MaxLimit     = paging.MaxLimit
)

// ClampLimit applies the list limit rules: 0 means the default, and any
// other value is clamped to 1..100.
func ClampLimit(n int, given bool) int { return paging.ClampLimit(n, given) }

func decodeCursor(s string) (*storage.Cursor, error) { return paging.DecodeCursor(s) }

// paginate trims a result fetched with limit+1 rows to a page.
func paginate[T any](rows []T, limit int, cursorOf func(T) storage.Cursor) Page[T] {
	return paging.Paginate(rows, limit, cursorOf)
}
