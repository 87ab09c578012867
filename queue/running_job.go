package queue

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/heraldmail/herald/storage"
)

// RunningJob is a claimed job handed to its kind's Run.
type RunningJob struct {
	storage.Job
	d        *Dispatcher
	lease    time.Duration
	finished atomic.Bool // the handler removed the job in its own write

	// runCtx and l are the dispatcher's context and the job's lane, and
	// next the job FinishIn claimed for this slot (claim_next.go); an
	// adopted job has no lane and claims nothing.
	runCtx context.Context
	l      *lane
	next   nextJob
}

// FinishIn removes a successful job inside the handler's own write, which
// spares the dispatcher a write of its own afterwards. Only for kinds whose
// completed jobs are not kept (KeepFor 0) and that are not periodic; the
// handler must then return no error. The same write claims the lane's next
// due job, which this job's worker then runs (claim_next.go).
func (j *RunningJob) FinishIn(ctx context.Context, tx *storage.Tx) (err error) {
	defer wrap(&err, "RunningJob.FinishIn")
	if err := j.d.storeOf(j.Kind).Remove(ctx, tx, j.Job, false, "", j.d.clock.Now()); err != nil {
		return err
	}
	tx.OnCommit(func() { j.finished.Store(true) })
	if j.l != nil {
		j.d.claimNext(j.runCtx, tx, j.l, &j.next)
	}
	return nil
}

// Progress records progress (0..100) and a checkpoint from which a rerun
// resumes, and renews the lease. Pass a nil checkpoint to keep the last one.
// Handlers that write rows should call it inside the same write as the rows
// (see SaveProgress) so that progress and work can never disagree.
func (j *RunningJob) Progress(ctx context.Context, percent int, checkpoint any) (err error) {
	defer wrap(&err, "RunningJob.Progress")
	return j.d.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
		return j.SaveProgress(ctx, tx, percent, checkpoint)
	})
}

// SaveProgress is Progress inside the caller's write.
func (j *RunningJob) SaveProgress(ctx context.Context, tx *storage.Tx, percent int, checkpoint any) (err error) {
	defer wrap(&err, "RunningJob.SaveProgress")
	var cp []byte
	if checkpoint != nil {
		var err error
		if cp, err = json.Marshal(checkpoint); err != nil {
			return err
		}
	}
	now := j.d.clock.Now()
	ok, err := j.d.storeOf(j.Kind).Extend(ctx, tx, j.Job, percent, cp, now.Add(j.lease), now)
	if err == nil && !ok {
		return errors.New("job lease lost")
	}
	return err
}

// Adopt returns the RunningJob a handler is given for a job claimed
// outside the dispatcher, so that a test can call a handler directly at a
// chosen moment.
func (d *Dispatcher) Adopt(j storage.Job) *RunningJob {
	lease := 2 * time.Minute
	if k, ok := d.kinds[j.Kind]; ok {
		lease = k.Lease
	}
	return &RunningJob{Job: j, d: d, lease: lease}
}
