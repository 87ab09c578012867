package storage

import (
	"context"
	"database/sql"
	"strconv"
)

// The scan pool: read-only connections that read the database file
// through a memory map (PRAGMA mmap_size) instead of a pread(2) per page.
// A segment count streams every index entry its operands select, tens of
// megabytes of pages at a million contacts, far more than the 16 MB page
// cache holds, so without the map every count copies each page through a
// system call again: at a million contacts that was 40-45% of a count's
// CPU (docs/performance.md). Only the segment counts and member pages use
// it (DB.Scanner): mapped pages that a scan touched count in the process's
// resident memory until the kernel reclaims them, which the campaign
// fan-out and the hot paths, measured by their peak RSS, should not pay.
// The map is shared with the kernel's page cache, so it costs no memory
// of its own.

// scanMmapSize is the most of the file a scan connection maps; SQLite caps
// it at its compile-time limit (about 2 GB), beyond which it reads pages
// as usual.
const scanMmapSize = 1 << 40

// scanConns is the scan pool's size: counts are CPU-bound, so more
// connections than cores would only queue in the scheduler.
const scanConns = 2

func openScan(path string) (*sql.DB, error) {
	scan, err := sql.Open("sqlite", dsn(path, true)+"&_pragma=mmap_size%28"+strconv.FormatInt(scanMmapSize, 10)+"%29")
	if err != nil {
		return nil, err
	}
	scan.SetMaxOpenConns(scanConns)
	scan.SetMaxIdleConns(scanConns)
	return scan, nil
}

// Scanner returns a Querier for the condition engine's large reads
// (CountAudience, AudiencePage): the ad hoc audience queries run on the
// scan pool, everything else as on Reader.
func (db *DB) Scanner() Querier { return scanQuerier{readQuerier{db}} }

type scanQuerier struct{ readQuerier }

// adhoc runs an unprepared query on the scan pool.
func (s scanQuerier) adhoc(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.db.scan.QueryContext(ctx, query, args...)
}

func (s scanQuerier) adhocRow(ctx context.Context, query string, args ...any) *sql.Row {
	return s.db.scan.QueryRowContext(ctx, query, args...)
}
