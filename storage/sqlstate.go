package storage

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Constraint failures, told apart on either engine: PostgreSQL's by
// SQLSTATE, SQLite's by the driver's message (the contact check of events,
// a trigger, raises the same message as a foreign key: migration 00022),
// which the operation names wrapped around it (errors.go) leave whole.
const (
	sqlStateUniqueViolation     = "23505"
	sqlStateForeignKeyViolation = "23503"
)

// sqlState returns a PostgreSQL error's SQLSTATE, "" for any other error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// isUniqueViolation reports a UNIQUE or PRIMARY KEY constraint's failure.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if code := sqlState(err); code != "" {
		return code == sqlStateUniqueViolation
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// isForeignKeyViolation reports a foreign key's failure, or the contact
// check's, which says the same.
func isForeignKeyViolation(err error) bool {
	if err == nil {
		return false
	}
	if code := sqlState(err); code != "" {
		return code == sqlStateForeignKeyViolation
	}
	return strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}
