package storage

import (
	"os"
	"testing"

	"github.com/heraldmail/herald/storage/pgtest"
)

// TestMain drops the PostgreSQL template database the tests were cloned
// from when they end (pgtest.Main); on SQLite it only runs them.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
