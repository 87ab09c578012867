package storage

import (
	"database/sql"
	"errors"
	"time"
)

// ErrNotFound is returned when a lookup by key finds no row.
var ErrNotFound = errors.New("storage: not found")

// Millis converts a time to the stored representation, Unix milliseconds.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// FromMillis converts a stored time back, in UTC.
func FromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// affected returns the number of rows a statement changed.
func affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
