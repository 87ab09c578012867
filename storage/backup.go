package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
)

// Backup writes a consistent copy of the data directory's database to
// dest with VACUUM INTO: one read transaction, so the copy holds every
// write committed before it began and nothing half-done, while a server
// goes on writing (WAL readers do not block the writer). The copy is
// written beside dest and renamed into place, so dest is never a partial
// file; it is 0600.
func Backup(ctx context.Context, dataDir, dest string) (err error) {
	defer wrap(&err, "Backup")
	src := filepath.Join(dataDir, FileName)
	if _, err := os.Stat(src); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dsn(src, false))
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tmp := dest + ".partial-" + strconv.Itoa(os.Getpid())
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	f.Close()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("vacuum %s into %s: %w", src, dest, err)
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dest))
}

// CheckBackup opens a backup read-only and checks that it is a sound
// Herald database this binary can run: SQLite's quick_check passes, it
// has Herald's migrations table, and none newer than this binary knows.
// It returns the backup's migration version.
func CheckBackup(ctx context.Context, path string) (_ int64, err error) {
	defer wrap(&err, "CheckBackup")
	if _, err := os.Stat(path); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&"+url.Values{"_pragma": {"busy_timeout(10000)"}}.Encode())
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return 0, fmt.Errorf("%s is not a SQLite database: %w", path, err)
	}
	if check != "ok" {
		return 0, fmt.Errorf("%s is damaged: %s", path, check)
	}
	have, known, err := Versions(ctx, db)
	switch {
	case err != nil:
		return 0, err
	case have == 0:
		return 0, fmt.Errorf("%s is not a Herald database (it has no migrations)", path)
	case have > known:
		return 0, fmt.Errorf("%s: %w", path, ErrTooNew{Database: have, Known: known})
	}
	return have, nil
}

// Restore puts a checked backup in place as the data directory's
// database. The caller holds the data directory's lock: no server runs.
// The copy is written beside the database and renamed over it once
// complete, after the old WAL and shared-memory files are gone (the WAL
// of the old database must never be applied to the restored one).
func Restore(dataDir, backup string) (err error) {
	defer wrap(&err, "Restore")
	dst := filepath.Join(dataDir, FileName)
	tmp := dst + ".restoring"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := PrepareFile(tmp); err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := copyInto(tmp, backup); err != nil {
		return err
	}
	for _, side := range []string{dst + "-wal", dst + "-shm"} {
		if err := os.Remove(side); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return syncDir(dataDir)
}

func copyInto(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every file system syncs directories
	return nil
}
