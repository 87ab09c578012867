package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/heraldmail/herald/migrations"
)

// NewMigrator returns a goose provider over the embedded migrations of the
// database's engine (migrations/sqlite or migrations/postgres). It uses
// no goose globals, so several databases can be migrated in one process.
// On PostgreSQL it migrates under a session advisory lock: of several
// processes starting at once, one migrates and the others wait for it.
func NewMigrator(db *sql.DB) (_ *goose.Provider, err error) {
	defer wrap(&err, "NewMigrator")
	if isPostgresDB(db) {
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, err
		}
		return goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres(), goose.WithSessionLocker(locker))
	}
	return goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite())
}

// isPostgresDB reports whether a database/sql handle speaks to
// PostgreSQL (through pgx) rather than SQLite.
func isPostgresDB(db *sql.DB) bool {
	_, ok := db.Driver().(*stdlib.Driver)
	return ok
}

// Migrate applies every pending migration and returns how many ran.
func Migrate(ctx context.Context, db *sql.DB) (_ int, err error) {
	defer wrap(&err, "Migrate")
	if err := checkNotTooNew(ctx, db); err != nil {
		return 0, err
	}
	p, err := NewMigrator(db)
	if err != nil {
		return 0, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return 0, fmt.Errorf("up: %w", err)
	}
	return len(res), nil
}
