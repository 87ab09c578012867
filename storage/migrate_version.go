package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// ErrTooNew is returned, wrapped with both versions, when the database was
// migrated by a newer Herald than this one.
type ErrTooNew struct {
	Database, Known int64
}

func (e ErrTooNew) Error() string {
	return fmt.Sprintf("the database is at migration %d, but this herald knows migrations up to %d only: "+
		"it was used by a newer herald; run that version (or a newer one), or restore a backup made with this one",
		e.Database, e.Known)
}

// Versions returns the newest migration applied to the database (0 for a
// new one) and the newest this binary embeds. It writes nothing.
func Versions(ctx context.Context, db *sql.DB) (database, known int64, err error) {
	defer wrap(&err, "Versions")
	p, err := NewMigrator(db)
	if err != nil {
		return 0, 0, err
	}
	for _, s := range p.ListSources() {
		known = max(known, s.Version)
	}
	var n int
	hasTable := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`
	if isPostgresDB(db) {
		hasTable = `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'goose_db_version'`
	}
	if err := db.QueryRowContext(ctx, hasTable).Scan(&n); err != nil {
		return 0, 0, err
	}
	if n == 0 {
		return 0, known, nil
	}
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version WHERE is_applied`).Scan(&v); err != nil {
		return 0, 0, err
	}
	return v.Int64, known, nil
}

// checkNotTooNew refuses a database migrated past what this binary knows,
// before anything is written to it.
func checkNotTooNew(ctx context.Context, db *sql.DB) error {
	have, known, err := Versions(ctx, db)
	if err != nil {
		return err
	}
	if have > known {
		return ErrTooNew{Database: have, Known: known}
	}
	return nil
}

// Versions returns the newest migration applied to the database and the
// newest this binary embeds, read on the reader pool.
func (db *DB) Versions(ctx context.Context) (database, known int64, err error) {
	defer wrap(&err, "DB.Versions")
	return Versions(ctx, db.reader)
}
