package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Dispatcher runs queued jobs with bounded concurrency per lane: each lane
// is a pool of workers for some job kinds, so that thousands of queued
// deliveries never hold up an import, and the other way round.
type Dispatcher struct {
	db       *storage.DB
	clock    Clock
	log      *slog.Logger
	handlers map[string]JobHandler
	lanes    []*lane
	wake     chan struct{}
	running  sync.WaitGroup
}

type lane struct {
	name     string
	slots    chan struct{}
	kinds    []string
	maxLease time.Duration // the lease a claim takes: the longest its handlers ask for
	drain    drainState
}

// drainState remembers that a claim found a lane empty, so that a busy
// lane's completions do not make every other lane query the queue. Any
// change that may give the lane due work (an enqueue, a retry, the clock
// reaching the next due time) bumps changes; the lane counts as drained
// only while no change happened since the claim that found it empty, so a
// job enqueued while that claim was under way is never overlooked.
type drainState struct {
	changes atomic.Uint64
	emptyAt atomic.Uint64 // changes+1 as read before the claim that found the lane empty; 0: never
	// at is the time of that claim: every job of the lane due by then was
	// seen. Only the Run goroutine uses it.
	at time.Time
}

// version is read before a claim and passed to markEmpty after it.
func (s *drainState) version() uint64 { return s.changes.Load() }

func (s *drainState) markEmpty(version uint64, at time.Time) {
	s.at = at
	s.emptyAt.Store(version + 1)
}

func (s *drainState) drained() bool { return s.emptyAt.Load() == s.changes.Load()+1 }

// changed notes that the lane may have due work.
func (s *drainState) changed() { s.changes.Add(1) }

// DefaultLane runs the kinds whose handler names no lane.
const DefaultLane = "default"

// NewDispatcher returns a dispatcher whose default lane runs at most
// workers jobs at once.
func NewDispatcher(db *storage.DB, clock Clock, log *slog.Logger, workers int) *Dispatcher {
	d := &Dispatcher{db: db, clock: clock, log: log, handlers: map[string]JobHandler{}, wake: make(chan struct{}, 1)}
	d.AddLane(DefaultLane, workers)
	return d
}

// AddLane adds a worker pool. Call it before Register and Run.
func (d *Dispatcher) AddLane(name string, workers int) {
	if workers <= 0 {
		workers = 4
	}
	d.lanes = append(d.lanes, &lane{name: name, slots: make(chan struct{}, workers)})
}

func (d *Dispatcher) lane(name string) *lane {
	for _, l := range d.lanes {
		if l.name == name {
			return l
		}
	}
	panic("app: job lane " + name + " was not added")
}

// Register sets the handler of a kind. Call it before Run.
func (d *Dispatcher) Register(kind string, h JobHandler) {
	if h.MaxAttempts <= 0 {
		h.MaxAttempts = 5
	}
	if h.Lease <= 0 {
		h.Lease = 2 * time.Minute
	}
	if h.Backoff == nil {
		h.Backoff = ExponentialBackoff(10*time.Second, time.Hour)
	}
	if h.Lane == "" {
		h.Lane = DefaultLane
	}
	d.handlers[kind] = h
	l := d.lane(h.Lane)
	l.kinds = append(l.kinds, kind)
	l.maxLease = max(l.maxLease, h.Lease)
}

// ExponentialBackoff doubles base per attempt, up to limit.
func ExponentialBackoff(base, limit time.Duration) func(int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

// idleWait bounds how long the dispatcher sleeps without looking, so that
// jobs added by another process (the CLI) are found too.
const idleWait = 30 * time.Second

// Run claims and runs due jobs until ctx ends, then waits for the running
// ones, whose contexts are cancelled with ctx.
func (d *Dispatcher) Run(ctx context.Context) {
	defer d.running.Wait()
	for {
		d.claimAndStart(ctx)
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-d.clock.Until(d.nextWake(ctx)):
			d.undrain() // jobs may have fallen due
		}
	}
}

func (d *Dispatcher) undrain() {
	for _, l := range d.lanes {
		l.drain.changed()
	}
}

// nextWake is when a drained lane may have work again: the first time a job
// falls due or a lease runs out after the earliest drain. It is idleWait
// from now at the latest. Lanes that are not drained need no timer: they
// are full, and a finishing job wakes the dispatcher.
func (d *Dispatcher) nextWake(ctx context.Context) time.Time {
	limit := d.clock.Now().Add(idleWait)
	since, ok := d.earliestDrain()
	if !ok {
		return limit
	}
	next, ok, err := storage.NextJobTime(ctx, d.db.Reader(), since)
	if err != nil || !ok || next.After(limit) {
		return limit
	}
	return next
}

func (d *Dispatcher) earliestDrain() (since time.Time, ok bool) {
	for _, l := range d.lanes {
		if l.drain.drained() && (!ok || l.drain.at.Before(since)) {
			since, ok = l.drain.at, true
		}
	}
	return since, ok
}

func (d *Dispatcher) claimAndStart(ctx context.Context) {
	for _, l := range d.lanes {
		d.claimLane(ctx, l)
	}
}

func (d *Dispatcher) claimLane(ctx context.Context, l *lane) {
	free := cap(l.slots) - len(l.slots)
	if free == 0 || l.drain.drained() || len(l.kinds) == 0 || ctx.Err() != nil {
		return
	}
	version := l.drain.version()
	var jobs []storage.Job
	var now time.Time
	var claimedN int
	err := d.db.Write(ctx, func(tx *storage.Tx) error {
		now = d.clock.Now()
		// Claim with the longest lease the lane's handlers use; each
		// handler's own lease applies from its first Progress call.
		claimed, err := tx.ClaimJobs(ctx, l.kinds, now, now.Add(l.maxLease), free)
		if err != nil {
			return err
		}
		claimedN = len(claimed)
		jobs, err = d.startClaimed(ctx, tx, l, claimed, now)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			d.log.Error("claim jobs", "lane", l.name, "err", err)
		}
		return
	}
	if claimedN < free {
		l.drain.markEmpty(version, now)
	}
	for _, j := range jobs {
		l.slots <- struct{}{}
		d.running.Add(1)
		go d.run(ctx, l, j)
	}
	if claimedN == free {
		d.Wake() // there may be more
	}
}

// startClaimed runs the Claimed hooks of freshly claimed jobs and returns
// the jobs left to run; the others are completed in the same write.
func (d *Dispatcher) startClaimed(ctx context.Context, tx *storage.Tx, l *lane, claimed []storage.Job, now time.Time) ([]storage.Job, error) {
	jobs := claimed[:0:0]
	for _, j := range claimed {
		h, ok := d.handlers[j.Kind]
		if !ok || h.Claimed == nil {
			jobs = append(jobs, j)
			continue
		}
		run, err := h.Claimed(ctx, tx, j)
		switch {
		case err != nil:
			return nil, err
		case run:
			jobs = append(jobs, j)
		default:
			if err := d.complete(ctx, tx, l, j, h, nil, now); err != nil {
				return nil, err
			}
		}
	}
	return jobs, nil
}

func (d *Dispatcher) run(ctx context.Context, l *lane, j storage.Job) {
	defer func() {
		<-l.slots
		d.running.Done()
		d.Wake()
	}()
	log := d.log.With("job_id", j.ID, "job_kind", j.Kind, "attempt", j.Attempts)
	h, ok := d.handlers[j.Kind]
	if !ok {
		d.finish(ctx, log, l, j, h, nil, Permanent(fmt.Errorf("no handler for job kind %q", j.Kind)))
		return
	}
	start := d.clock.Now()
	rj := &RunningJob{Job: j, d: d, lease: h.Lease}
	result, err := d.call(ctx, h, rj)
	log.Debug("job ran", "took", d.clock.Now().Sub(start), "err", err)
	if err == nil && rj.finished.Load() {
		return
	}
	d.finish(ctx, log, l, j, h, result, err)
}

// call runs the handler, turning a panic into a failed attempt.
func (d *Dispatcher) call(ctx context.Context, h JobHandler, j *RunningJob) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return h.Run(ctx, j)
}

// finish records the outcome of an attempt. It runs even when ctx has
// ended: an attempt cut short by shutdown goes back in the queue at once.
func (d *Dispatcher) finish(ctx context.Context, log *slog.Logger, l *lane, j storage.Job, h JobHandler, result any, runErr error) {
	wctx := context.WithoutCancel(ctx)
	now := d.clock.Now()
	err := d.db.Write(wctx, func(tx *storage.Tx) error {
		switch {
		case runErr == nil:
			return d.complete(wctx, tx, l, j, h, result, now)
		case ctx.Err() != nil:
			requeued(tx, l)
			return tx.RetryJob(wctx, j.ID, j.Attempts, now, "interrupted by shutdown", now)
		}
		var perm PermanentError
		if errors.As(runErr, &perm) || j.Attempts >= j.MaxAttempts {
			log.Warn("job failed", "err", runErr)
			if h.Every > 0 {
				requeued(tx, l)
				return tx.RescheduleJob(wctx, j.ID, now.Add(h.Every), now)
			}
			return tx.FinishJob(wctx, j.ID, j.Attempts, storage.JobFailed, nil, runErr.Error(), now)
		}
		log.Info("job will retry", "err", runErr)
		requeued(tx, l)
		return tx.RetryJob(wctx, j.ID, j.Attempts, now.Add(h.Backoff(j.Attempts)), runErr.Error(), now)
	})
	if err != nil {
		log.Error("record job outcome", "err", err)
	}
}

// requeued notes, once tx commits, that a job of l is back in the queue:
// the lane may have due work again.
func requeued(tx *storage.Tx, l *lane) { tx.OnCommit(l.drain.changed) }

func (d *Dispatcher) complete(ctx context.Context, tx *storage.Tx, l *lane, j storage.Job, h JobHandler, result any, now time.Time) error {
	switch {
	case h.Every > 0:
		requeued(tx, l)
		return tx.RescheduleJob(ctx, j.ID, now.Add(h.Every), now)
	case h.KeepFor == 0:
		return tx.DeleteJob(ctx, j.ID)
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
