package storage

import (
	"context"
	"database/sql"
	"time"
)

// KindStateCount is the number of jobs of a kind in a state.
type KindStateCount struct {
	Kind, State string
	N           int
}

// JobCounts counts the jobs queued, active and failed, by kind.
func JobCounts(ctx context.Context, q Querier) (_ []KindStateCount, err error) {
	defer wrap(&err, "JobCounts")
	rows, err := q.Query(ctx, `SELECT kind, state, count(*) FROM jobs WHERE state IN ('queued', 'active', 'failed')
		GROUP BY kind, state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []KindStateCount
	for rows.Next() {
		var c KindStateCount
		if err := rows.Scan(&c.Kind, &c.State, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// OldestWaitingJob is when the oldest job of a kind still waiting (queued
// or running) was created; ok is false when none waits.
func OldestWaitingJob(ctx context.Context, q Querier, kind string) (at time.Time, ok bool, err error) {
	defer wrap(&err, "OldestWaitingJob")
	var ms sql.NullInt64
	err = q.QueryRow(ctx, `SELECT min(created_at) FROM jobs WHERE kind = ? AND state IN ('queued', 'active')`, kind).Scan(&ms)
	if err != nil || !ms.Valid {
		return time.Time{}, false, err
	}
	return time.UnixMilli(ms.Int64).UTC(), true, nil
}

// ProbeWrite is the readiness check's write: a real row written and
// committed, so a read-only file, a full disk or a stuck writer shows.
func (tx *Tx) ProbeWrite(ctx context.Context, now time.Time) (err error) {
	defer wrap(&err, "Tx.ProbeWrite")
	_, err = tx.Exec(ctx, `INSERT INTO settings (key, value) VALUES ('health.probe', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, now.UTC().Format(time.RFC3339Nano))
	return err
}
