package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Job states.
const (
	JobQueued    = "queued"
	JobActive    = "active"
	JobCompleted = "completed"
	JobFailed    = "failed"
)

// Job is one unit of background work.
type Job struct {
	ID           string
	ProjectID    string // "" for system jobs
	Kind         string
	Payload      []byte
	State        string
	RunAt        time.Time
	Attempts     int
	MaxAttempts  int
	LeaseUntil   time.Time
	Progress     int
	Checkpoint   json.RawMessage // handler's resume point, saved with its progress
	Result       json.RawMessage
	FailedReason string
	UniqueKey    string // at most one job with this key exists; "" for none
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

const jobColumns = `id, COALESCE(project_id, ''), kind, payload, state, run_at, attempts, max_attempts,
	COALESCE(lease_until, 0), progress, COALESCE(checkpoint, ''), COALESCE(result, ''),
	COALESCE(failed_reason, ''), COALESCE(unique_key, ''), created_at, updated_at`

func scanJob(s scanner) (Job, error) {
	var j Job
	var runAt, lease, created, updated int64
	var checkpoint, result string
	err := s.Scan(&j.ID, &j.ProjectID, &j.Kind, &j.Payload, &j.State, &runAt, &j.Attempts, &j.MaxAttempts,
		&lease, &j.Progress, &checkpoint, &result, &j.FailedReason, &j.UniqueKey, &created, &updated)
	j.RunAt, j.LeaseUntil = FromMillis(runAt), FromMillis(lease)
	j.CreatedAt, j.UpdatedAt = FromMillis(created), FromMillis(updated)
	if checkpoint != "" {
		j.Checkpoint = json.RawMessage(checkpoint)
	}
	if result != "" {
		j.Result = json.RawMessage(result)
	}
	return j, notFound(err)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// InsertJob queues a job. With a UniqueKey that already exists, nothing is
// inserted and the result is false.
func (tx *Tx) InsertJob(ctx context.Context, j Job) (_ bool, err error) {
	defer wrap(&err, "Tx.InsertJob")
	n, err := affected(tx.Exec(ctx, `INSERT INTO jobs (id, project_id, kind, payload, state, run_at, max_attempts,
			unique_key, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?) ON CONFLICT (unique_key) DO NOTHING`,
		j.ID, nullable(j.ProjectID), j.Kind, j.Payload, Millis(j.RunAt), j.MaxAttempts,
		nullable(j.UniqueKey), Millis(j.CreatedAt), Millis(j.CreatedAt)))
	return n > 0, err
}

// ClaimJobs leases up to limit jobs of the given kinds that are due:
// queued ones whose time has come and active ones whose lease ran out
// because their worker died. Each claim counts an attempt, so a job whose
// worker died during its last attempt comes back with more attempts than
// its maximum: the dispatcher gives it up instead of running it.
func (tx *Tx) ClaimJobs(ctx context.Context, kinds []string, now, leaseUntil time.Time, limit int) (_ []Job, err error) {
	defer wrap(&err, "Tx.ClaimJobs")
	rows, err := tx.Query(ctx, `UPDATE jobs SET state = 'active', lease_until = ?2, attempts = attempts + 1, updated_at = ?1
		WHERE id IN (
			SELECT id FROM jobs WHERE state = 'queued' AND run_at <= ?1 AND kind IN (SELECT value FROM json_each(?4))
			UNION ALL
			SELECT id FROM jobs WHERE state = 'active' AND lease_until <= ?1 AND kind IN (SELECT value FROM json_each(?4))
			LIMIT ?3)
		RETURNING `+jobColumns, Millis(now), Millis(leaseUntil), limit, jsonArray(kinds))
	return collect(rows, err, scanJob)
}

const (
	nextJobTimeSQL = `SELECT MIN(t) FROM (
		SELECT (SELECT MIN(run_at) FROM jobs WHERE state = 'queued' AND kind = k.value AND run_at > ?1) AS t
			FROM json_each(?2) AS k
		UNION ALL SELECT MIN(lease_until) FROM jobs WHERE state = 'active' AND lease_until > ?1)`
	nextJobTimePG = `SELECT MIN(t) FROM (
		SELECT (SELECT MIN(run_at) FROM jobs WHERE state = 'queued' AND kind = k.value AND run_at > ?1) AS t
			FROM json_array_elements_text(?2::json) AS k(value)
		UNION ALL SELECT MIN(lease_until) FROM jobs WHERE state = 'active' AND lease_until > ?1) AS due`
)

// NextJobTime is when, after the given time, the earliest queued job of
// the given kinds becomes due or the earliest lease runs out; ok is false
// when there is no such job. Jobs due at or before after are left out: the
// caller has looked for them already, and counting them again would wake
// it at once, for ever, while they wait for a free worker. Queued jobs are
// looked up per kind (jobs_queued_by_kind): the kinds are few, and an index
// by due time alone would be one more for every claim to update.
func NextJobTime(ctx context.Context, q Querier, after time.Time, kinds []string) (t time.Time, ok bool, err error) {
	defer wrap(&err, "NextJobTime")
	var next sql.NullInt64
	err = q.QueryRow(ctx, nextJobTimeSQL, Millis(after), jsonArray(kinds)).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(next.Int64), true, nil
}

// ExtendJob renews a lease and records progress and a checkpoint. It
// reports false when the job is no longer leased to this attempt.
func (tx *Tx) ExtendJob(ctx context.Context, id string, attempt int, progress int, checkpoint []byte, leaseUntil, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.ExtendJob")
	n, err := affected(tx.Exec(ctx, `UPDATE jobs SET lease_until = ?, progress = ?, checkpoint = COALESCE(?, checkpoint), updated_at = ?
		WHERE id = ? AND state = 'active' AND attempts = ?`,
		Millis(leaseUntil), progress, nullBytes(checkpoint), Millis(now), id, attempt))
	return n > 0, err
}

const (
	finishJobSQL = `UPDATE jobs SET state = ?, result = ?, failed_reason = ?, lease_until = NULL,
			attempts = MIN(attempts, max_attempts),
			progress = CASE WHEN ? < 0 THEN progress ELSE ? END, updated_at = ?
		WHERE id = ? AND attempts = ?`
	finishJobPG = `UPDATE jobs SET state = ?, result = ?, failed_reason = ?, lease_until = NULL,
			attempts = least(attempts, max_attempts),
			progress = CASE WHEN ?::bigint < 0 THEN progress ELSE ? END, updated_at = ?
		WHERE id = ? AND attempts = ?`
)

// FinishJob marks an attempt completed (result may be nil) or failed. A job
// given up after its worker died on its last attempt was claimed once more
// than allowed; it is recorded at its maximum.
func (tx *Tx) FinishJob(ctx context.Context, id string, attempt int, state string, result []byte, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.FinishJob")
	progress := 100
	if state == JobFailed {
		progress = -1 // keep the last reported progress
	}
	_, err = tx.Exec(ctx, finishJobSQL,
		state, nullBytes(result), nullable(reason), progress, progress, Millis(now), id, attempt)
	return err
}

// RetryJob puts an attempt back in the queue for runAt, noting why it failed.
func (tx *Tx) RetryJob(ctx context.Context, id string, attempt int, runAt time.Time, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.RetryJob")
	_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = ?, lease_until = NULL, failed_reason = ?, updated_at = ?
		WHERE id = ? AND attempts = ?`, Millis(runAt), reason, Millis(now), id, attempt)
	return err
}

// ReleaseJob puts back in the queue, due now, an attempt that shutdown cut
// short. The attempt is not counted: it did not fail.
func (tx *Tx) ReleaseJob(ctx context.Context, id string, attempt int, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.ReleaseJob")
	_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = ?1, attempts = attempts - 1, lease_until = NULL,
			failed_reason = ?2, updated_at = ?1
		WHERE id = ?3 AND attempts = ?4`, Millis(now), reason, id, attempt)
	return err
}

// PostponeJob puts an attempt back in the queue, due at runAt, without
// counting it: the job could not run for a reason outside itself.
func (tx *Tx) PostponeJob(ctx context.Context, id string, attempt int, runAt time.Time, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.PostponeJob")
	_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = ?1, attempts = attempts - 1, lease_until = NULL,
			failed_reason = ?2, updated_at = ?3
		WHERE id = ?4 AND attempts = ?5`, Millis(runAt), reason, Millis(now), id, attempt)
	return err
}

// ResumePostponedJobs makes the queued jobs of a kind postponed for a
// reason due now.
func (tx *Tx) ResumePostponedJobs(ctx context.Context, kind, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.ResumePostponedJobs")
	_, err = tx.Exec(ctx, `UPDATE jobs SET run_at = ?1, updated_at = ?1
		WHERE kind = ?2 AND state = 'queued' AND failed_reason = ?3 AND run_at > ?1`, Millis(now), kind, reason)
	return err
}

// RescheduleJob queues a finished periodic job again from a clean slate.
func (tx *Tx) RescheduleJob(ctx context.Context, id string, runAt, now time.Time) (err error) {
	defer wrap(&err, "Tx.RescheduleJob")
	_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = ?, attempts = 0, lease_until = NULL,
			progress = 0, checkpoint = NULL, failed_reason = NULL, updated_at = ? WHERE id = ?`,
		Millis(runAt), Millis(now), id)
	return err
}

// DeleteJob removes a job.
func (tx *Tx) DeleteJob(ctx context.Context, id string) (err error) {
	defer wrap(&err, "Tx.DeleteJob")
	_, err = tx.Exec(ctx, `DELETE FROM jobs WHERE id = ?`, id)
	return err
}

// DeleteFinishedJobs removes completed and failed jobs last touched before t.
func (tx *Tx) DeleteFinishedJobs(ctx context.Context, before time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteFinishedJobs")
	return affected(tx.Exec(ctx, `DELETE FROM jobs WHERE state IN ('completed', 'failed') AND updated_at < ?`, Millis(before)))
}

// JobByID finds a job of a project.
func JobByID(ctx context.Context, q Querier, projectID, id string) (_ Job, err error) {
	defer wrap(&err, "JobByID")
	return scanJob(q.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ? AND project_id = ?`, id, projectID))
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// NextRunOfKind is when the earliest queued job of a kind is due.
func NextRunOfKind(ctx context.Context, q Querier, kind string) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "NextRunOfKind")
	var next sql.NullInt64
	err = q.QueryRow(ctx, `SELECT MIN(run_at) FROM jobs WHERE state = 'queued' AND kind = ?`, kind).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(next.Int64), true, nil
}

// ExpireJobLeases ends the lease of every job marked active, so that the
// next claim takes them: again, or given up if that was their last
// attempt. Only a server starting up calls it: the lock on the data
// directory guarantees those jobs' workers are gone.
func (tx *Tx) ExpireJobLeases(ctx context.Context, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.ExpireJobLeases")
	return affected(tx.Exec(ctx, `UPDATE jobs SET lease_until = ?1, updated_at = ?1 WHERE state = 'active'`, Millis(now)))
}
