// Package pgtest gives tests a fresh, migrated PostgreSQL database each,
// on the server HERALD_TEST_DATABASE_URL names
// (postgres://postgres@127.0.0.1:5432/test?sslmode=disable, say). Without
// the variable the suite runs on SQLite, as it always has; with it, the
// tests that open their database through this package run on PostgreSQL.
//
// Migrating a database takes about a second; cloning one takes a fraction
// of that. So the first test of a binary migrates a template database,
// named by a hash of the PostgreSQL migrations
// (herald_template_<hash>), and every test gets a clone of it (CREATE
// DATABASE … TEMPLATE), dropped when the test ends. Several test binaries
// share a template: an advisory lock on the server serialises building it
// (exclusive) against cloning it (shared), and a template built under a
// unique name is renamed only once complete, so nobody clones half a
// schema. Main drops the template when the binary ends, if no other
// binary is cloning it at that moment (the next one builds it again), so
// that a run leaves the server as it found it.
//
// It imports neither storage nor app (it migrates with goose over
// migrations.Postgres directly), so that storage's own tests can use it.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"

	"github.com/heraldmail/herald/migrations"
)

// EnvURL names the variable that selects PostgreSQL for the tests.
const EnvURL = "HERALD_TEST_DATABASE_URL"

// EnvKeep, set to 1, keeps the database of a failed test (and logs its
// URL) instead of dropping it.
const EnvKeep = "HERALD_TEST_KEEP_DATABASE"

// URL returns the server the tests run PostgreSQL on; "" means SQLite.
func URL() string { return os.Getenv(EnvURL) }

// New returns the URL of a fresh database migrated to the newest
// PostgreSQL version, for t alone, and drops the database when t ends.
// It fails t when HERALD_TEST_DATABASE_URL is not set.
func New(t testing.TB) string {
	t.Helper()
	server := URL()
	if server == "" {
		t.Fatalf("pgtest: %s is not set", EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmpl, err := templateOf(migrations.Postgres())
	if err != nil {
		t.Fatal(err)
	}
	name := "herald_test_" + randomHex(8)
	if err := clone(ctx, server, tmpl, name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dbURL, err := withDatabase(server, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv(EnvKeep) == "1" {
			t.Logf("pgtest: kept the database of the failed test: %s", dbURL)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, server, name); err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return dbURL
}

// Main runs the tests of a package that uses New, then drops the
// template they were cloned from unless another test binary is cloning it
// right now. Use it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	server := URL()
	if server == "" {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmpl, err := templateOf(migrations.Postgres())
	if err == nil {
		err = dropTemplate(ctx, server, tmpl)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: drop the template: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// A template is a migrated database that tests clone, and the advisory
// lock key that guards it.
type template struct {
	name string
	lock int64
}

// templateOf names the template of a migration set by a hash of its files,
// so that a changed migration builds a new template instead of cloning a
// stale one, and binaries of two schemas never share one.
func templateOf(set fs.FS) (template, error) {
	h := sha256.New()
	h.Write([]byte("herald pgtest template 1\n"))
	err := fs.WalkDir(set, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(set, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return template{}, fmt.Errorf("pgtest: hash the migrations: %w", err)
	}
	sum := h.Sum(nil)
	return template{
		name: "herald_template_" + hex.EncodeToString(sum[:8]),
		lock: int64(binary.BigEndian.Uint64(sum[8:16])),
	}, nil
}

// clone creates database name from the template, building the template
// first when no binary has (or one dropped it meanwhile).
func clone(ctx context.Context, server string, tmpl template, name string) error {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(server), err)
	}
	defer conn.Close(context.Background())
	for range 5 {
		created, err := cloneExisting(ctx, conn, tmpl, name)
		if err != nil || created {
			return err
		}
		if err := build(ctx, conn, server, tmpl); err != nil {
			return err
		}
	}
	return fmt.Errorf("clone %s: the template kept disappearing", tmpl.name)
}

// cloneExisting clones the template under the shared lock, so that no
// binary drops it meanwhile; created is false when it does not exist.
func cloneExisting(ctx context.Context, conn *pgx.Conn, tmpl template, name string) (created bool, err error) {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", tmpl.lock); err != nil {
		return false, fmt.Errorf("lock the template: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock_shared($1)", tmpl.lock)
	ok, err := databaseExists(ctx, conn, tmpl.name)
	if err != nil || !ok {
		return false, err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+quote(name)+" TEMPLATE "+quote(tmpl.name)); err != nil {
		return false, fmt.Errorf("clone %s: %w", tmpl.name, err)
	}
	return true, nil
}

// build migrates the template under the exclusive lock: into a scratch
// database first, renamed to the template's name once complete.
func build(ctx context.Context, conn *pgx.Conn, server string, tmpl template) error {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", tmpl.lock); err != nil {
		return fmt.Errorf("lock the template: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", tmpl.lock)
	if ok, err := databaseExists(ctx, conn, tmpl.name); err != nil || ok {
		return err // built by another binary while this one waited
	}
	scratch := tmpl.name + "_building"
	// A binary killed while building leaves its scratch database behind.
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(scratch)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop %s: %w", scratch, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+quote(scratch)); err != nil {
		return fmt.Errorf("create %s: %w", scratch, err)
	}
	if err := migrate(ctx, server, scratch); err != nil {
		_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+quote(scratch)+" WITH (FORCE)")
		return err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+quote(scratch)+" RENAME TO "+quote(tmpl.name)); err != nil {
		return fmt.Errorf("rename %s: %w", scratch, err)
	}
	return nil
}

// migrate applies the PostgreSQL migrations to database name, as storage
// does, and closes every connection to it (a database being accessed
// cannot be renamed or cloned).
func migrate(ctx context.Context, server, name string) error {
	dbURL, err := withDatabase(server, name)
	if err != nil {
		return err
	}
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres())
	if err != nil {
		return fmt.Errorf("migrate %s: %w", name, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", name, err)
	}
	return db.Close()
}

// dropTemplate drops the template if no binary holds its lock.
func dropTemplate(ctx context.Context, server string, tmpl template) error {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(server), err)
	}
	defer conn.Close(context.Background())
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", tmpl.lock).Scan(&locked); err != nil {
		return fmt.Errorf("lock the template: %w", err)
	}
	if !locked {
		return nil // in use: its last user drops it
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", tmpl.lock)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(tmpl.name)); err != nil {
		return fmt.Errorf("drop %s: %w", tmpl.name, err)
	}
	return nil
}

// dropDatabase drops a test's database, closing what the test left open.
func dropDatabase(ctx context.Context, server, name string) error {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(server), err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)")
	return err
}

func databaseExists(ctx context.Context, conn *pgx.Conn, name string) (bool, error) {
	var ok bool
	err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look for database %s: %w", name, err)
	}
	return ok, nil
}

// withDatabase returns the server URL with its database replaced.
func withDatabase(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("pgtest: %s must be a postgres:// URL", EnvURL)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// redact hides a password in a URL shown in an error.
func redact(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return EnvURL
	}
	return u.Redacted()
}

func quote(name string) string { return pgx.Identifier{name}.Sanitize() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
