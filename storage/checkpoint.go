package storage

import (
	"context"
	"database/sql"
	"time"
)

// checkpointInterval is how often, while writes happen, the WAL is copied
// back into the database file.
const checkpointInterval = 250 * time.Millisecond

// The writer does not checkpoint: SQLite's automatic checkpoint would run
// inside a COMMIT on the writer connection and stall every queued write
// behind it. A separate connection checkpoints instead, in PASSIVE mode,
// which never blocks the writer or the readers, and so runs on another core
// while writes go on.
func (db *DB) startCheckpointer(ctx context.Context) error {
	if _, err := db.writer.ExecContext(ctx, "PRAGMA wal_autocheckpoint=0"); err != nil {
		return err
	}
	cp, err := sql.Open("sqlite", dsn(db.path, false))
	if err != nil {
		return err
	}
	cp.SetMaxOpenConns(1)
	db.dirty = make(chan struct{}, 1)
	db.checkpointDone = make(chan struct{})
	go db.checkpointLoop(cp)
	return nil
}

// markDirty tells the checkpointer that a commit added to the WAL.
func (db *DB) markDirty() {
	select {
	case db.dirty <- struct{}{}:
	default:
	}
}

func (db *DB) checkpointLoop(cp *sql.DB) {
	defer close(db.checkpointDone)
	defer cp.Close()
	for {
		select {
		case <-db.dirty:
		case <-db.stop:
			return
		}
		select {
		case <-time.After(checkpointInterval):
		case <-db.stop:
			return
		}
		_, _ = cp.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
}
