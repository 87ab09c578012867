package queue

import (
	"context"
	"errors"
	"time"

	"github.com/heraldmail/herald/storage"
)

// PostponedError makes the dispatcher put a job back in the queue, due
// After from now, without counting the attempt: the job did not fail, it
// could not run (a relay refusing Herald's credentials is the operator's
// to fix, and must not use up the retries of every queued message).
type PostponedError struct {
	After time.Duration
	Err   error
	// Until, when set, is asked inside the write that postpones the job:
	// true means the cause has already cleared (another job found it
	// fixed and resumed the postponed ones before this one was written
	// back), so the job is due at once instead of waiting out After.
	Until func() bool
}

func (e PostponedError) Error() string { return e.Err.Error() }
func (e PostponedError) Unwrap() error { return e.Err }

// PostponeUntil wraps err so that the job runs again after d, uncounted,
// unless its cause clears while the job is being written back (cleared
// reports that it has; nil means it cannot).
func PostponeUntil(d time.Duration, err error, cleared func() bool) error {
	if err == nil {
		err = errors.New("postponed")
	}
	return PostponedError{After: d, Err: err, Until: cleared}
}

// Running reports whether Run is running: the readiness check.
func (d *Dispatcher) Running() bool { return d.alive.Load() }

// LaneCount is the number of jobs of a lane in a state: queued, running
// or failed.
type LaneCount struct {
	Lane, State string
	N           int
}

// Counts returns the jobs by lane and state, every lane and state present
// (0 included), for the metrics.
func (d *Dispatcher) Counts(ctx context.Context) (_ []LaneCount, err error) {
	defer wrap(&err, "Dispatcher.Counts")
	var rows []storage.KindStateCount
	stores, _ := d.stores()
	for _, s := range stores {
		n, err := s.Counts(ctx, d.db.Reader())
		if err != nil {
			return nil, err
		}
		rows = append(rows, n...)
	}
	states := []string{"queued", "running", "failed"}
	sum := map[[2]string]int{}
	for _, r := range rows {
		k, ok := d.kinds[r.Kind]
		if !ok {
			continue
		}
		state := r.State
		if state == "active" {
			state = "running"
		}
		sum[[2]string{k.lane.name, state}] += r.N
	}
	var out []LaneCount
	for _, l := range d.lanes {
		for _, s := range states {
			out = append(out, LaneCount{Lane: l.name, State: s, N: sum[[2]string{l.name, s}]})
		}
	}
	return out, nil
}

// ResumePostponed makes the jobs of a kind postponed with reason (the
// text of the error given to Postpone), for at most within, due now,
// inside the caller's write. (A store of its own may not keep the reason:
// it then resumes whatever waits for at most within.)
func (d *Dispatcher) ResumePostponed(ctx context.Context, tx *storage.Tx, kind, reason string, within time.Duration) (err error) {
	defer wrap(&err, "Dispatcher.ResumePostponed")
	k, ok := d.kinds[kind]
	if !ok {
		return errors.New("no job kind " + kind)
	}
	if err := k.store().ResumePostponed(ctx, tx, kind, reason, within, d.clock.Now()); err != nil {
		return err
	}
	d.wakeOnCommit(tx, k)
	return nil
}
