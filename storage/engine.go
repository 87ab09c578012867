package storage

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Two database engines sit below storage's exported functions: SQLite, a
// file in the data directory (the default, and the heart of the product),
// and PostgreSQL, a server named by a postgres:// URL. Everything above
// storage (app, queue, the CLI) sees one API; below it, what differs is
// small and kept here and in engine_postgres.go:
//
//   - opening: pragmas and a memory-mapped scan pool on SQLite; two pgx
//     pools (the writer's, the readers') on PostgreSQL;
//   - the write transaction: BEGIN IMMEDIATE on SQLite; READ COMMITTED on
//     PostgreSQL;
//   - statement texts: PostgreSQL numbers its placeholders ($N), and about
//     a quarter of the statements need a text of their own (a dialect
//     table, postgresTexts, keyed by the SQLite text);
//   - errors: SQLite's constraint failures are told by their message,
//     PostgreSQL's by SQLSTATE (sqlstate.go).
//
// A DB on SQLite has a nil pg, and its hot paths (the writer, the
// statement caches) test nothing else: the PostgreSQL text of a statement
// is computed where the statement is prepared, once per connection, and
// never per execution.

// IsPostgresURL reports whether location names a PostgreSQL server
// (libpq's URL forms) rather than a data directory.
func IsPostgresURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// A pgEngine is what a DB on PostgreSQL needs beyond the shared code:
// its statement texts.
type pgEngine struct {
	texts map[string]string // SQLite text -> PostgreSQL text, for statements that differ

	// rebound caches the PostgreSQL text of each statement met, up to
	// maxRebound texts: the static statements number a few hundred; the
	// condition engine's texts vary with their conditions, and past the
	// bound are rebound each time (a scan of the text, well under a
	// round trip to the server).
	rebound  sync.Map
	nRebound atomic.Int64
}

const maxRebound = 4096

func newPgEngine() *pgEngine { return &pgEngine{texts: postgresTexts()} }

// text returns the PostgreSQL text of a statement written for SQLite: its
// entry in the dialect table, or the SQLite text with its placeholders
// renumbered.
func (e *pgEngine) text(query string) string {
	if t, ok := e.rebound.Load(query); ok {
		return t.(string)
	}
	t, ok := e.texts[query]
	if !ok {
		t = rebind(query)
	}
	if e.nRebound.Load() < maxRebound {
		if _, loaded := e.rebound.LoadOrStore(query, t); !loaded {
			e.nRebound.Add(1)
		}
	}
	return t
}
