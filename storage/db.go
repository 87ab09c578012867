// Package storage is Herald's database access: opening the database (SQLite
// with its pragmas, or PostgreSQL: engine.go), the migrations runner, the
// group-committing writer, and the queries, grouped per resource. It knows
// nothing of HTTP or of the domain's rules; it stores and fetches rows.
//
// The split between writing and reading is explicit: every write runs inside
// DB.Write on the single writer connection, every read outside a write goes
// through DB.Reader's pool.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the database file inside the data directory.
const FileName = "herald.db"

// DB is an open Herald database.
type DB struct {
	path   string
	writer *sql.DB // exactly one connection, owned by the writer goroutine
	reader *sql.DB // a small pool of read-only connections
	scan   *sql.DB // read-only connections reading through a memory map (scan.go)

	bitmaps *bitmapCache // sets for counts and member pages (bitmap_cache.go)

	readStmts sync.Map // query text -> *sql.Stmt on the reader pool

	writes   chan *writeRequest
	stop     chan struct{}
	finished chan struct{}
	closeMu  sync.Once

	onBatch func(int)

	dirty          chan struct{} // a commit happened since the last checkpoint
	checkpointDone chan struct{}

	begin   string          // the statement that starts a write transaction
	pg      *pgEngine       // nil on SQLite (engine.go)
	pgPools []*pgxpool.Pool // PostgreSQL's connection pools, closed last
}

// Options tune Open. The zero value is right for production.
type Options struct {
	Readers  int // reader pool size; default max(4, GOMAXPROCS)
	MaxBatch int // writes grouped into one transaction at most; default 256
	// OnBatch, when set, is called after each committed transaction with
	// the number of writes it held (the metrics' write batches).
	OnBatch func(writes int)
	// BitmapBudget bounds the memory of segment counts' bitmaps, in bytes;
	// default BitmapBudget (bitmap_cache.go).
	BitmapBudget int64
}

// Open opens (creating if needed) the database in dataDir, applies pending
// migrations, and starts the writer. A postgres:// (or postgresql://) URL
// in place of dataDir opens that PostgreSQL database instead
// (engine_postgres.go).
func Open(ctx context.Context, dataDir string, opts Options) (_ *DB, err error) {
	defer wrap(&err, "Open")
	if IsPostgresURL(dataDir) {
		return openPostgres(ctx, dataDir, opts)
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if err := prepareFiles(path); err != nil {
		return nil, err
	}
	db, err := openUnstarted(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := Migrate(ctx, db.writer); err != nil {
		db.closeConns()
		return nil, err
	}
	// stop exists before the checkpointer and the writer start, since both
	// watch it.
	db.stop = make(chan struct{})
	if err := db.startCheckpointer(ctx); err != nil {
		db.closeConns()
		return nil, fmt.Errorf("checkpointer: %w", err)
	}
	db.onBatch = opts.OnBatch
	db.startWriter(ctx, opts)
	return db, nil
}

// OpenWithoutMigrating opens the database for the migrate command, which
// decides itself whether to apply migrations. No writer is started.
func OpenWithoutMigrating(dataDir string) (_ *sql.DB, err error) {
	defer wrap(&err, "OpenWithoutMigrating")
	if IsPostgresURL(dataDir) {
		return openPostgresWithoutMigrating(dataDir)
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if err := prepareFiles(path); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	return w, nil
}

// prepareFiles gives the database file, and its WAL and shared-memory
// files when they exist, mode 0600 and the data directory's owner (see
// PrepareFile). SQLite creates the WAL and shared-memory files with the
// database file's mode and, under root, its owner.
func prepareFiles(path string) error {
	if err := PrepareFile(path); err != nil {
		return err
	}
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(side); err == nil {
			if err := PrepareFile(side); err != nil {
				return err
			}
		}
	}
	return nil
}

func openUnstarted(path string, opts Options) (*DB, error) {
	writer, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	// Touch the writer first so that WAL mode is set before readers open.
	if err := writer.Ping(); err != nil {
		writer.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		writer.Close()
		return nil, err
	}
	n := opts.Readers
	if n <= 0 {
		n = max(4, runtime.GOMAXPROCS(0))
	}
	reader.SetMaxOpenConns(n)
	reader.SetMaxIdleConns(n)
	scan, err := openScan(path)
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, err
	}
	budget := opts.BitmapBudget
	if budget <= 0 {
		budget = BitmapBudget
	}
	return &DB{path: path, writer: writer, reader: reader, scan: scan, bitmaps: newBitmapCache(budget),
		begin: "BEGIN IMMEDIATE"}, nil
}

// dsn sets the pragmas on every connection the driver opens. WAL lets
// readers proceed while the writer commits; synchronous=NORMAL in WAL mode
// keeps every commit atomic and durable across a process crash (only an OS
// crash or power loss can drop the last commits).
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "temp_store(MEMORY)")
	if readOnly {
		q.Add("_pragma", "cache_size(-"+readerCacheKB+")")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "cache_size(-16000)")
	}
	return "file:" + path + "?" + q.Encode()
}

// readerCacheKB is each reader connection's page cache, in KB; the writer
// keeps 16 MB. A page cache fills up to its size with whatever its
// connection read last and is never given back, so the readers' caches are
// what makes a process's memory grow with its data: a campaign reads its
// whole audience in keyset batches through every reader of the pool in
// turn, so at 16 MB each the four readers could come to hold 64 MB of
// contact pages that are never read again once the audience outgrows them
// (SQLite held 32 MB after a 100,000-contact campaign, and its share grew
// with the audience). 4 MB each, twice SQLite's default, keeps the hot
// pages of the lookups; larger scans are served from the operating
// system's file cache, a pread a page.
const readerCacheKB = "4000"

// Path is the database file; "" on PostgreSQL.
func (db *DB) Path() string { return db.path }

// Postgres reports whether the database is on PostgreSQL.
func (db *DB) Postgres() bool { return db.pg != nil }

// Close stops the writer after the writes already queued, checkpoints the
// WAL and closes every connection.
func (db *DB) Close() (err error) {
	defer wrap(&err, "DB.Close")
	db.closeMu.Do(func() {
		if db.stop != nil {
			close(db.stop)
			<-db.finished
			<-db.checkpointDone
		}
		if db.pg == nil {
			_, _ = db.writer.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		}
		err = db.closeConns()
	})
	return err
}

func (db *DB) closeConns() error {
	db.readStmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	if db.pg != nil { // the scan pool is the reader pool
		err := errors.Join(db.reader.Close(), db.writer.Close())
		for _, p := range db.pgPools {
			p.Close()
		}
		return err
	}
	return errors.Join(db.scan.Close(), db.reader.Close(), db.writer.Close())
}

// Reader returns the read pool for queries outside a write.
func (db *DB) Reader() Querier { return readQuerier{db} }

// Querier runs statements; both the reader pool and a write transaction
// implement it, so a query function can serve either.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *sql.Row
}

type readQuerier struct{ db *DB }

func (r readQuerier) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := r.db.readStmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := r.db.reader.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := r.db.readStmts.LoadOrStore(query, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

func (r readQuerier) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return nil, errors.New("storage: write attempted on the reader pool")
}

func (r readQuerier) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if e := r.db.pg; e != nil { // pgx prepares and caches it on each connection
		return r.db.reader.QueryContext(ctx, e.text(query), args...)
	}
	s, err := r.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (r readQuerier) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if e := r.db.pg; e != nil {
		return r.db.reader.QueryRowContext(ctx, e.text(query), args...)
	}
	s, err := r.stmt(ctx, query)
	if err != nil {
		// database/sql offers no way to build a *sql.Row holding an error,
		// so run the unprepared query, which reports the same error.
		return r.db.reader.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}
