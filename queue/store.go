package queue

import (
	"context"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Store is where the jobs of a kind are kept. The jobs table keeps every
// kind that names no store of its own; a kind may instead keep its jobs
// in the rows it works on (a campaign's email is its own delivery: no job
// row per recipient to insert, move between indexes and delete). The
// dispatcher claims, retries, postpones, releases and gives up the jobs of
// every store alike, from the same lanes.
//
// A store hands its jobs out as storage.Job values: ID names the job to
// the store's other methods, Kind its row of the table, Attempts is
// counted by each claim (and taken back by Release and Postpone), and the
// methods that change a job are guarded by that count, as the jobs
// table's are: a worker whose lease ran out cannot write over the attempt
// that claimed the job after it. MaxAttempts may be left 0: the
// dispatcher fills in the kind's.
//
// A kind with a store of its own is not periodic, keeps no completed job
// (KeepFor 0) and gives up with Then: its jobs leave the store when they
// end.
type Store interface {
	// Claim leases up to limit due jobs of kinds: queued ones whose time
	// has come and running ones whose lease ran out.
	Claim(ctx context.Context, tx *storage.Tx, kinds []string, now, leaseUntil time.Time, limit int) ([]storage.Job, error)
	// Extend renews a lease, with the progress and checkpoint a store may
	// keep; false when the job is no longer leased to this attempt.
	Extend(ctx context.Context, tx *storage.Tx, j storage.Job, progress int, checkpoint []byte, leaseUntil, now time.Time) (bool, error)
	// Retry queues a failed attempt again for runAt, counted.
	Retry(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, reason string, now time.Time) error
	// Postpone queues an attempt again for runAt, uncounted; Release does
	// so for now, for an attempt that shutdown cut short.
	Postpone(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, reason string, now time.Time) error
	Release(ctx context.Context, tx *storage.Tx, j storage.Job, reason string, now time.Time) error
	// Remove ends a job: it succeeded, or gave up (its kind's give-up
	// outcome ran first, in the same write).
	Remove(ctx context.Context, tx *storage.Tx, j storage.Job, failed bool, reason string, now time.Time) error
	// ResumePostponed makes the jobs of kind postponed for reason, for at
	// most within from now, due now.
	ResumePostponed(ctx context.Context, tx *storage.Tx, kind, reason string, within time.Duration, now time.Time) error
	// ExpireLeases ends every lease (a server starting up: their workers
	// are gone).
	ExpireLeases(ctx context.Context, tx *storage.Tx, now time.Time) (int64, error)
	// NextTime is when, after after, a queued job of kinds falls due or a
	// lease runs out; NextRun when the earliest queued job of kind is due.
	NextTime(ctx context.Context, q storage.Querier, after time.Time, kinds []string) (time.Time, bool, error)
	NextRun(ctx context.Context, q storage.Querier, kind string) (time.Time, bool, error)
	// Counts counts the jobs queued, active and failed, by kind.
	Counts(ctx context.Context, q storage.Querier) ([]storage.KindStateCount, error)
}

// jobsTable is the Store of the jobs table.
type jobsTable struct{}

func (jobsTable) Claim(ctx context.Context, tx *storage.Tx, kinds []string, now, leaseUntil time.Time, limit int) ([]storage.Job, error) {
	return tx.ClaimJobs(ctx, kinds, now, leaseUntil, limit)
}

func (jobsTable) Extend(ctx context.Context, tx *storage.Tx, j storage.Job, progress int, checkpoint []byte, leaseUntil, now time.Time) (bool, error) {
	return tx.ExtendJob(ctx, j.ID, j.Attempts, progress, checkpoint, leaseUntil, now)
}

func (jobsTable) Retry(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, reason string, now time.Time) error {
	return tx.RetryJob(ctx, j.ID, j.Attempts, runAt, reason, now)
}

func (jobsTable) Postpone(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, reason string, now time.Time) error {
	return tx.PostponeJob(ctx, j.ID, j.Attempts, runAt, reason, now)
}

func (jobsTable) Release(ctx context.Context, tx *storage.Tx, j storage.Job, reason string, now time.Time) error {
	return tx.ReleaseJob(ctx, j.ID, j.Attempts, reason, now)
}

// Remove deletes a completed job; a failed one stays readable as failed
// until the cleanup removes it.
func (jobsTable) Remove(ctx context.Context, tx *storage.Tx, j storage.Job, failed bool, reason string, now time.Time) error {
	if !failed {
		return tx.DeleteJob(ctx, j.ID)
	}
	return tx.FinishJob(ctx, j.ID, j.Attempts, storage.JobFailed, nil, reason, now)
}

func (jobsTable) ResumePostponed(ctx context.Context, tx *storage.Tx, kind, reason string, _ time.Duration, now time.Time) error {
	return tx.ResumePostponedJobs(ctx, kind, reason, now)
}

func (jobsTable) ExpireLeases(ctx context.Context, tx *storage.Tx, now time.Time) (int64, error) {
	return tx.ExpireJobLeases(ctx, now)
}

func (jobsTable) NextTime(ctx context.Context, q storage.Querier, after time.Time, kinds []string) (time.Time, bool, error) {
	return storage.NextJobTime(ctx, q, after, kinds)
}

func (jobsTable) NextRun(ctx context.Context, q storage.Querier, kind string) (time.Time, bool, error) {
	return storage.NextRunOfKind(ctx, q, kind)
}

func (jobsTable) Counts(ctx context.Context, q storage.Querier) ([]storage.KindStateCount, error) {
	return storage.JobCounts(ctx, q)
}
