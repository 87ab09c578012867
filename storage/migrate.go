package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pressly/goose/v3"

	"github.com/heraldmail/herald/migrations"
)

// NewMigrator returns a goose provider over the embedded migrations. It uses
// no goose globals, so several databases can be migrated in one process.
func NewMigrator(db *sql.DB) (_ *goose.Provider, err error) {
	defer wrap(&err, "NewMigrator")
	return goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite())
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
