package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// FinishedJobRetention is how long a finished import or bulk job can still
// be read through its status endpoint.
const FinishedJobRetention = 7 * 24 * time.Hour

// runCleanup deletes expired idempotency keys, old finished jobs and the
// bodies of final emails that a crash kept (their deletes are gathered
// for a later write: storage's email_bodies_drop.go). (Jobs
// whose worker died on their last attempt are given up by the queue's
// claims, with their kind's outcome.)
func (a *App) runCleanup(ctx context.Context, _ *queue.RunningJob) (any, error) {
	var keys, jobs, bodies int64
	now := a.clock.Now()
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		if keys, err = tx.DeleteExpiredIdempotencyKeys(ctx, now); err != nil {
			return err
		}
		if bodies, err = tx.DropFinishedBodies(ctx); err != nil {
			return err
		}
		jobs, err = tx.DeleteFinishedJobs(ctx, now.Add(-FinishedJobRetention))
		return err
	})
	if err == nil && keys+jobs+bodies > 0 {
		a.log.Info("cleanup", "idempotency_keys", keys, "finished_jobs", jobs, "kept_bodies", bodies)
	}
	return nil, err
}
