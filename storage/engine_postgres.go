package storage

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL's side of the engine layer (engine.go): opening the pools,
// migrating under an advisory lock, and the statements that differ
// (postgres_texts.go).
//
// The writer is one connection, as on SQLite, group-committing in READ
// COMMITTED transactions: within one process the single writer keeps
// every guarantee it gives on SQLite, so this stage changes no write's
// logic. Several writer lanes, and several processes, need the write-site
// audit first (docs/decisions.md, "Two database engines").
//
// Readers do not prepare through database/sql, whose prepared statements
// belong to one pooled connection and would be prepared again on every
// borrowed one: pgx caches each statement text it meets on each
// connection (its default mode), which is the same once-per-connection
// preparation the SQLite side does by hand.

// postgresBegin starts a write transaction.
const postgresBegin = "BEGIN ISOLATION LEVEL READ COMMITTED"

// openPostgres opens the database a postgres:// URL names, migrates it
// and starts the writer.
func openPostgres(ctx context.Context, dbURL string, opts Options) (*DB, error) {
	writerPool, readerPool, err := openPostgresPools(ctx, dbURL, opts)
	if err != nil {
		return nil, err
	}
	db := &DB{
		writer:  stdlib.OpenDBFromPool(writerPool),
		reader:  stdlib.OpenDBFromPool(readerPool),
		bitmaps: newBitmapCache(1), // unused: no bitmaps on PostgreSQL yet
		pg:      newPgEngine(),
		pgPools: []*pgxpool.Pool{writerPool, readerPool},
		begin:   postgresBegin,
	}
	db.scan = db.reader
	if _, err := Migrate(ctx, db.writer); err != nil {
		db.closeConns()
		return nil, err
	}
	db.stop = make(chan struct{})
	db.checkpointDone = make(chan struct{})
	close(db.checkpointDone) // PostgreSQL checkpoints by itself
	db.onBatch = opts.OnBatch
	db.startWriter(ctx, opts)
	return db, nil
}

// openPostgresPools opens the writer's pool (one connection) and the
// readers' (read-only sessions).
func openPostgresPools(ctx context.Context, dbURL string, opts Options) (writer, reader *pgxpool.Pool, err error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parse the database URL: %w", err)
	}
	// Session settings of every connection, unless the URL sets them: no
	// statement runs for ever, and no transaction stays open for ever in
	// a connection the writer lost.
	for k, v := range map[string]string{"statement_timeout": "30000", "idle_in_transaction_session_timeout": "60000"} {
		if _, set := cfg.ConnConfig.RuntimeParams[k]; !set {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	wcfg := cfg.Copy()
	wcfg.MinConns, wcfg.MaxConns = 1, 1
	rcfg := cfg.Copy()
	n := opts.Readers
	if n <= 0 {
		n = max(4, runtime.GOMAXPROCS(0))
	}
	rcfg.MaxConns = int32(n)
	rcfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	if writer, err = pgxpool.NewWithConfig(ctx, wcfg); err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	if err := writer.Ping(ctx); err != nil {
		writer.Close()
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	if reader, err = pgxpool.NewWithConfig(ctx, rcfg); err != nil {
		writer.Close()
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	return writer, reader, nil
}

// openPostgresWithoutMigrating opens a database/sql handle for the
// migrate command.
func openPostgresWithoutMigrating(dbURL string) (*sql.DB, error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("parse the database URL: %w", err)
	}
	return stdlib.OpenDB(*cfg.ConnConfig), nil
}
