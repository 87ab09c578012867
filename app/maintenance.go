package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Job kinds of the foundation.
const (
	JobCleanup        = "maintenance.cleanup"
	JobImportContacts = "contacts.import"
	JobBulkContacts   = "contacts.bulk"
)

// FinishedJobRetention is how long a finished import or bulk job can still
// be read through its status endpoint.
const FinishedJobRetention = 7 * 24 * time.Hour

func (a *App) registerJobs() {
	a.jobs.Register(JobCleanup, JobHandler{Run: a.runCleanup, Every: time.Hour})
	a.jobs.Register(JobImportContacts, JobHandler{Run: a.runImport, KeepFor: FinishedJobRetention, MaxAttempts: 3})
	a.jobs.Register(JobBulkContacts, JobHandler{Run: a.runBulk, KeepFor: FinishedJobRetention, MaxAttempts: 3})
	a.jobs.Register(JobCheckDomains, JobHandler{Run: a.runDomainChecks, Every: DomainCheckInterval, MaxAttempts: 1})
	a.jobs.Register(JobSegments, JobHandler{Run: a.runSegments, Every: SegmentRefreshEvery, MaxAttempts: 1, Lease: 10 * time.Minute})
	a.registerDelivery()
	a.registerCampaigns()
}

// schedulePeriodic makes sure each periodic job exists once; the unique key
// keeps restarts from adding copies.
func (a *App) schedulePeriodic(ctx context.Context) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		for kind, h := range a.jobs.handlers {
			if h.Every == 0 {
				continue
			}
			if _, err := a.jobs.Enqueue(ctx, tx, JobSpec{Kind: kind, UniqueKey: kind}); err != nil {
				return err
			}
		}
		return nil
	})
}

// runCleanup deletes expired idempotency keys and old finished jobs.
func (a *App) runCleanup(ctx context.Context, _ *RunningJob) (any, error) {
	var keys, jobs int64
	now := a.clock.Now()
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		if keys, err = tx.DeleteExpiredIdempotencyKeys(ctx, now); err != nil {
			return err
		}
		if _, err = tx.FailAbandonedJobs(ctx, now); err != nil {
			return err
		}
		jobs, err = tx.DeleteFinishedJobs(ctx, now.Add(-FinishedJobRetention))
		return err
	})
	if err == nil && keys+jobs > 0 {
		a.log.Info("cleanup", "idempotency_keys", keys, "finished_jobs", jobs)
	}
	return nil, err
}

// RecoverInterruptedJobs requeues the jobs a previous server left active
// when it died, so that they run now rather than when their leases run out.
// Call it before Run, and only while holding the data directory's lock.
func (a *App) RecoverInterruptedJobs(ctx context.Context) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		n, err := tx.RequeueActiveJobs(ctx, a.clock.Now())
		if n > 0 {
			a.log.Info("requeued jobs interrupted by the last shutdown", "jobs", n)
		}
		return err
	})
}
