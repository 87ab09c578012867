package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/heraldmail/herald/storage"
)

// JobHandler runs one kind of job.
type JobHandler struct {
	// Run does the work. Its result is stored as JSON for status queries.
	// It must be safe to run again after a crash: a job whose worker died
	// is claimed again when its lease runs out.
	Run func(ctx context.Context, job *RunningJob) (result any, err error)

	// Claimed, if set, runs inside the write that claims the job, so that
	// the work is marked started in the same transaction. It returns false
	// when the job has nothing left to do: it is then completed in that
	// write and Run is not called.
	Claimed func(ctx context.Context, tx *storage.Tx, job storage.Job) (run bool, err error)

	MaxAttempts int                             // default 5
	Lease       time.Duration                   // default 2m; RunningJob.Progress renews it
	Backoff     func(attempt int) time.Duration // delay before retry n (1-based); default 10s doubling, at most 1h
	KeepFor     time.Duration                   // how long a finished job stays readable; 0 deletes it at once
	Every       time.Duration                   // periodic: run again this long after each run
	Lane        string                          // the worker pool it runs in (AddLane); default "default"
}

// PermanentError marks a failure that retrying cannot fix.
type PermanentError struct{ Err error }

func (e PermanentError) Error() string { return e.Err.Error() }
func (e PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so that the job fails at once instead of retrying.
func Permanent(err error) error { return PermanentError{err} }

// RunningJob is a claimed job handed to its handler.
type RunningJob struct {
	storage.Job
	d        *Dispatcher
	lease    time.Duration
	finished atomic.Bool // the handler removed the job in its own write
}

// FinishIn removes a successful job inside the handler's own write, which
// spares the dispatcher a write of its own afterwards. Only for kinds whose
// finished jobs are not kept (KeepFor 0) and that are not periodic; the
// handler must then return no error.
func (j *RunningJob) FinishIn(ctx context.Context, tx *storage.Tx) error {
	if err := tx.DeleteJob(ctx, j.ID); err != nil {
		return err
	}
	tx.OnCommit(func() { j.finished.Store(true) })
	return nil
}

// Progress records progress (0..100) and a checkpoint from which a rerun
// resumes, and renews the lease. Pass a nil checkpoint to keep the last one.
// Handlers that write rows should call it inside the same write as the rows
// (see SaveProgress) so that progress and work can never disagree.
func (j *RunningJob) Progress(ctx context.Context, percent int, checkpoint any) error {
	return j.d.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
		return j.SaveProgress(ctx, tx, percent, checkpoint)
	})
}

// SaveProgress is Progress inside the caller's write.
func (j *RunningJob) SaveProgress(ctx context.Context, tx *storage.Tx, percent int, checkpoint any) error {
	var cp []byte
	if checkpoint != nil {
		var err error
		if cp, err = json.Marshal(checkpoint); err != nil {
			return err
		}
	}
	now := j.d.clock.Now()
	ok, err := tx.ExtendJob(ctx, j.ID, j.Attempts, percent, cp, now.Add(j.lease), now)
	if err == nil && !ok {
		return errors.New("job lease lost")
	}
	return err
}

// JobSpec describes a job to enqueue.
type JobSpec struct {
	Kind      string
	ProjectID string
	Payload   any
	RunAt     time.Time // zero: now
	UniqueKey string    // enqueue is a no-op while a job with this key exists
}

// Enqueue adds a job inside the caller's write, so the job exists if and
// only if the caller's changes commit; the dispatcher wakes on commit.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *storage.Tx, s JobSpec) (string, error) {
	h, ok := d.handlers[s.Kind]
	if !ok {
		return "", fmt.Errorf("enqueue: no handler for job kind %q", s.Kind)
	}
	payload, err := json.Marshal(s.Payload)
	if err != nil {
		return "", err
	}
	now := d.clock.Now()
	if s.RunAt.IsZero() {
		s.RunAt = now
	}
	j := storage.Job{ID: newID(), ProjectID: s.ProjectID, Kind: s.Kind, Payload: payload, RunAt: s.RunAt,
		MaxAttempts: h.MaxAttempts, UniqueKey: s.UniqueKey, CreatedAt: now}
	if _, err := tx.InsertJob(ctx, j); err != nil {
		return "", err
	}
	l := d.lane(h.Lane)
	tx.OnCommit(func() {
		l.drain.changed()
		d.Wake()
	})
	return j.ID, nil
}

// Wake makes the dispatcher look for due jobs now.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}
