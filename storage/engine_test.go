package storage

import (
	"testing"

	"github.com/heraldmail/herald/storage/pgtest"
)

// testLocation is where a test's database lives: with
// HERALD_TEST_DATABASE_URL set, a fresh PostgreSQL database cloned from
// the migrated template (storage/pgtest); without it, a new directory for
// SQLite. Reopening the same location reopens the same database.
func testLocation(t testing.TB) string {
	t.Helper()
	if pgtest.URL() != "" {
		return pgtest.New(t)
	}
	return t.TempDir()
}

// sqliteOnly skips, on PostgreSQL, a test of SQLite's own machinery
// (pragmas, its file, its migrations' history), saying what it checks.
func sqliteOnly(t testing.TB, what string) {
	t.Helper()
	if pgtest.URL() != "" {
		t.Skipf("SQLite only: %s", what)
	}
}
