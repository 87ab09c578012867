package storage

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNewerDatabaseRefusedWithoutWriting: a binary older than the
// database stops before anything is written, naming both versions.
func TestNewerDatabaseRefusedWithoutWriting(t *testing.T) {
	sqliteOnly(t, "the database file is left untouched")
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName), false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(filepath.Join(dir, FileName))

	_, err = Open(ctx, dir, Options{})
	var tooNew ErrTooNew
	if !errors.As(err, &tooNew) || tooNew.Database != 9999 || tooNew.Known == 0 {
		t.Fatalf("Open: %v", err)
	}
	if !strings.Contains(err.Error(), "9999") || !strings.Contains(err.Error(), strconv.FormatInt(tooNew.Known, 10)) {
		t.Fatalf("message names both versions: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !bytes.Equal(before, after) {
		t.Fatal("the database file changed")
	}
	if wal, err := os.Stat(filepath.Join(dir, FileName+"-wal")); err == nil && wal.Size() > 0 {
		t.Fatalf("a WAL of %d bytes was written", wal.Size())
	}
}
