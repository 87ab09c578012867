package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/heraldmail/herald/storage"
)

// errAbandoned is the cause given to a job whose worker stopped during its
// last attempt.
var errAbandoned = errors.New("the worker stopped during the last attempt")

// run runs a claimed job in one of l's slots, then the jobs its outcome's
// writes claim for the same slot (claim_next.go), until one claims none.
func (d *Dispatcher) run(ctx context.Context, l *lane, j storage.Job) {
	defer func() {
		<-l.slots
		d.running.Done()
		d.Wake()
	}()
	for ok := true; ok; {
		j, ok = d.runOne(ctx, l, j)
	}
}

// runOne runs one job and records its outcome, and returns the job that
// write claimed next, if any.
func (d *Dispatcher) runOne(ctx context.Context, l *lane, j storage.Job) (storage.Job, bool) {
	log := d.log.With("job_id", j.ID, "job_kind", j.Kind, "attempt", j.Attempts)
	var next nextJob
	k, ok := d.kinds[j.Kind]
	switch {
	case !ok:
		// Claims name only the table's kinds; this is a guard.
		d.finish(ctx, log, l, j, &kind{lane: l}, nil, Permanent(fmt.Errorf("no handler for job kind %q", j.Kind)), &next)
		return next.take()
	case exhausted(j):
		d.finish(ctx, log, l, j, k, nil, Permanent(errAbandoned), &next)
		return next.take()
	}
	start := d.clock.Now()
	rj := &RunningJob{Job: j, d: d, lease: k.Lease, runCtx: ctx, l: l}
	result, err := call(ctx, k, rj)
	log.Debug("job ran", "took", d.clock.Now().Sub(start), "err", err)
	if err == nil && rj.finished.Load() {
		return rj.next.take()
	}
	if n, ok := rj.next.take(); ok {
		// FinishIn committed, then the handler failed: the claimed job
		// still runs, after this one's outcome.
		next = nextJob{job: n, ok: true}
	}
	d.finish(ctx, log, l, j, k, result, err, &next)
	return next.take()
}

// call runs the handler, turning a panic into a failed attempt.
func call(ctx context.Context, k *kind, j *RunningJob) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return k.Run(ctx, j)
}

// finish records the outcome of an attempt. It runs even when ctx has
// ended: an attempt cut short by shutdown goes back in the queue at once,
// and is not counted. The write claims the lane's next job into next,
// unless next holds one already.
func (d *Dispatcher) finish(ctx context.Context, log *slog.Logger, l *lane, j storage.Job, k *kind, result any, runErr error, next *nextJob) {
	wctx := context.WithoutCancel(ctx)
	now := d.clock.Now()
	var perm PermanentError
	var later PostponedError
	postponed := runErr != nil && ctx.Err() == nil && errors.As(runErr, &later)
	givingUp := runErr != nil && ctx.Err() == nil && !postponed && (errors.As(runErr, &perm) || j.Attempts >= j.MaxAttempts)
	claim := next
	if next.ok {
		claim = nil
	}
	record := func(tx *storage.Tx) error {
		switch {
		case runErr == nil:
			return d.complete(wctx, tx, j, k, result, now)
		case ctx.Err() != nil:
			requeued(tx, k)
			return k.store().Release(wctx, tx, j, "interrupted by shutdown", now)
		case postponed:
			requeued(tx, k)
			due := now.Add(later.After)
			if later.Until != nil && later.Until() {
				due = now
			}
			return k.store().Postpone(wctx, tx, j, due, runErr.Error(), now)
		case givingUp:
			return d.giveUp(wctx, tx, j, k, runErr, now)
		}
		requeued(tx, k)
		return k.store().Retry(wctx, tx, j, now.Add(k.Retry.Backoff(j.Attempts)), runErr.Error(), now)
	}
	err := d.db.Write(wctx, func(tx *storage.Tx) error {
		if err := record(tx); err != nil {
			return err
		}
		d.claimNext(ctx, tx, l, claim)
		return nil
	})
	switch {
	case err != nil && givingUp:
		d.failWithoutHook(wctx, log, j, k, runErr, err, now)
	case err != nil:
		log.Error("record job outcome", "err", err)
	case givingUp:
		log.Warn("job failed", "err", runErr, "outcome", k.GiveUp)
	case postponed:
		log.Debug("job postponed", "err", runErr)
	case runErr != nil && ctx.Err() == nil:
		log.Info("job will retry", "err", runErr)
	}
}

// giveUp ends a job after its last attempt with its kind's outcome.
func (d *Dispatcher) giveUp(ctx context.Context, tx *storage.Tx, j storage.Job, k *kind, cause error, now time.Time) error {
	switch k.GiveUp.what {
	case outcomeReschedule:
		requeued(tx, k)
		return tx.RescheduleJob(ctx, j.ID, now.Add(k.Every), now)
	case outcomeHook:
		if err := runHook(ctx, tx, k.GiveUp.hook, j, cause); err != nil {
			return err
		}
	}
	return k.store().Remove(ctx, tx, j, true, cause.Error(), now)
}

// runHook runs a give-up hook, turning a panic into an error.
func runHook(ctx context.Context, tx *storage.Tx, hook GiveUpFunc, j storage.Job, cause error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return hook(ctx, tx, j, cause)
}

// failWithoutHook fails a job whose give-up could not be recorded (its
// hook failed), so that it does not stay active; the entity it worked on
// is left as it was, which the log says loudly.
func (d *Dispatcher) failWithoutHook(ctx context.Context, log *slog.Logger, j storage.Job, k *kind, cause, hookErr error, now time.Time) {
	log.Error("job gave up, but its give-up outcome failed: the job is failed without it", "err", cause, "outcome_err", hookErr)
	err := d.db.Write(ctx, func(tx *storage.Tx) error {
		return k.store().Remove(ctx, tx, j, true, cause.Error(), now)
	})
	if err != nil {
		log.Error("record job outcome", "err", err)
	}
}

// requeued notes, once tx commits, that a job of k is back in the queue:
// its source may have due work again.
func requeued(tx *storage.Tx, k *kind) {
	if k.src != nil {
		tx.OnCommit(k.src.drain.changed)
	}
}

func (d *Dispatcher) complete(ctx context.Context, tx *storage.Tx, j storage.Job, k *kind, result any, now time.Time) error {
	switch {
	case k.Every > 0:
		requeued(tx, k)
		return tx.RescheduleJob(ctx, j.ID, now.Add(k.Every), now)
	case k.KeepFor == 0:
		return k.store().Remove(ctx, tx, j, false, "", now)
	}
	var b []byte
	if result != nil {
		var err error
		if b, err = json.Marshal(result); err != nil {
			return err
		}
	}
	return tx.FinishJob(ctx, j.ID, j.Attempts, storage.JobCompleted, b, "", now)
}
