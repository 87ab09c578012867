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

// runCleanup deletes expired idempotency keys and old finished jobs. (Jobs
// whose worker died on their last attempt are given up by the queue's
// claims, with their kind's outcome.)
func (a *App) runCleanup(ctx context.Context, _ *queue.RunningJob) (any, error) {
	var keys, jobs int64
	now := a.clock.Now()
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		if keys, err = tx.DeleteExpiredIdempotencyKeys(ctx, now); err != nil {
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
