package storage

import (
	"regexp"
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
//   - statement texts: PostgreSQL numbers its placeholders ($N); a few
//     SQLite idioms translate word for word (translateIdioms); shared
//     fragments (column lists) have a PostgreSQL text (postgresFragments);
//     and the statements that differ beyond that have a text of their own
//     (the dialect table, postgresTexts, keyed by the SQLite text);
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

	fragments []fragment
	idioms    *strings.Replacer
	arrays    *regexp.Regexp
}

const maxRebound = 4096

func newPgEngine() *pgEngine {
	idioms, arrays := newPostgresIdioms()
	return &pgEngine{texts: postgresTexts(), fragments: postgresFragments(), idioms: idioms, arrays: arrays}
}

// text returns the PostgreSQL text of a statement written for SQLite: its
// entry in the dialect table, or the SQLite text with its placeholders
// renumbered.
func (e *pgEngine) text(query string) string {
	if t, ok := e.rebound.Load(query); ok {
		return t.(string)
	}
	t, ok := e.texts[query]
	if !ok {
		t = e.translateIdioms(e.replaceFragments(query))
	}
	t = rebind(t)
	if e.nRebound.Load() < maxRebound {
		if _, loaded := e.rebound.LoadOrStore(query, t); !loaded {
			e.nRebound.Add(1)
		}
	}
	return t
}

// replaceFragments puts the PostgreSQL text of each shared fragment in a
// statement that holds it.
func (e *pgEngine) replaceFragments(query string) string {
	for _, f := range e.fragments {
		if strings.Contains(query, f.lite) {
			query = strings.ReplaceAll(query, f.lite, f.pg)
		}
	}
	return query
}

// newPostgresIdioms prepares translateIdioms.
func newPostgresIdioms() (*strings.Replacer, *regexp.Regexp) {
	return strings.NewReplacer("instr(", "strpos(", " LIKE ", " ILIKE "),
		regexp.MustCompile(`SELECT value FROM json_each\((\?\d*)\)`)
}

// translateIdioms rewrites, in a statement that has no entry in the
// dialect table, the SQLite idioms that have one PostgreSQL equivalent
// word for word:
//
//   - SELECT value FROM json_each(?N), a list passed as one JSON array
//     argument, reads it with json_array_elements_text(?N::json): the
//     caller's argument stays the same;
//   - instr(a, b) is strpos(a, b);
//   - LIKE is ILIKE: SQLite's LIKE folds ASCII letters, and ILIKE under
//     the "C" collation of every text column folds ASCII only, too.
func (e *pgEngine) translateIdioms(query string) string {
	if strings.Contains(query, "json_each(") {
		query = e.arrays.ReplaceAllString(query, "SELECT json_array_elements_text(${1}::json)")
	}
	return e.idioms.Replace(query)
}

// engineOf returns the PostgreSQL engine behind a Querier, nil on SQLite:
// for the statements built at run time, which pick their text where they
// are built.
func engineOf(q Querier) *pgEngine {
	switch q := q.(type) {
	case *Tx:
		return q.pg
	case readQuerier:
		return q.db.pg
	case scanQuerier:
		return q.db.pg
	}
	return nil
}
