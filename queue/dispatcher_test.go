package queue_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// testQueue is a database, a fake clock and a project whose jobs the tests
// enqueue; dispatchers are started on it as a process would start them.
type testQueue struct {
	t       *testing.T
	dir     string
	db      *storage.DB
	clock   *clocktest.Fake
	project string
	commits atomic.Int64 // write transactions committed
}

func newQueue(t *testing.T) *testQueue {
	q := &testQueue{t: t, dir: t.TempDir(), clock: clocktest.NewFake(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)), project: "p"}
	q.open()
	now := q.clock.Now()
	q.write(func(tx *storage.Tx) error {
		return tx.InsertProject(context.Background(), storage.Project{ID: q.project, Name: "p", Public: "pk_p", Secret: "sk_p", CreatedAt: now, UpdatedAt: now})
	})
	return q
}

func (q *testQueue) open() {
	db, err := storage.Open(context.Background(), q.dir, storage.Options{OnBatch: func(int) { q.commits.Add(1) }})
	if err != nil {
		q.t.Fatal(err)
	}
	q.db = db
	q.t.Cleanup(func() { db.Close() })
}

func (q *testQueue) write(fn func(*storage.Tx) error) {
	q.t.Helper()
	if err := q.db.Write(context.Background(), fn); err != nil {
		q.t.Fatal(err)
	}
}

// start runs a dispatcher with one lane of workers for the given kinds
// until the returned stop is called (or the test ends).
func (q *testQueue) start(workers int, kinds ...queue.Kind) (*queue.Dispatcher, func()) {
	return q.startWith([]queue.Lane{{Name: "default", Workers: workers}}, kinds...)
}

// startWith runs a dispatcher over the given lanes. A kind that names no
// lane runs in "default"; one that declares no outcome is rescheduled if
// periodic, and otherwise leaves only its failed job.
func (q *testQueue) startWith(lanes []queue.Lane, kinds ...queue.Kind) (*queue.Dispatcher, func()) {
	q.t.Helper()
	for i := range kinds {
		k := &kinds[i]
		if k.Lane == "" {
			k.Lane = "default"
		}
		switch {
		case k.GiveUp.Declared():
		case k.Every > 0:
			k.GiveUp = queue.Reschedule()
		default:
			k.GiveUp = queue.Then(func(context.Context, *storage.Tx, storage.Job, error) error { return nil })
		}
	}
	d, err := queue.New(queue.Options{DB: q.db, Clock: q.clock, Log: slog.New(slog.DiscardHandler), Lanes: lanes, Kinds: kinds})
	if err != nil {
		q.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	q.t.Cleanup(stop)
	return d, stop
}

func (q *testQueue) enqueue(d *queue.Dispatcher, spec queue.JobSpec) string {
	q.t.Helper()
	spec.ProjectID = q.project
	var id string
	q.write(func(tx *storage.Tx) error {
		var err error
		id, err = d.Enqueue(context.Background(), tx, spec)
		return err
	})
	return id
}

func (q *testQueue) job(id string) storage.Job {
	q.t.Helper()
	j, err := storage.JobByID(context.Background(), q.db.Reader(), q.project, id)
	if err != nil {
		q.t.Fatal(err)
	}
	return j
}

// waitFor polls until cond holds; real time, since the work runs on
// goroutines, but the queue's own schedule only moves with the fake clock.
func (q *testQueue) waitFor(what string, cond func() bool) {
	q.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			q.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (q *testQueue) waitState(id, state string) storage.Job {
	q.t.Helper()
	var j storage.Job
	q.waitFor("job "+state, func() bool { j = q.job(id); return j.State == state })
	return j
}

// advanceUntil moves the fake clock in steps until cond holds, so that the
// dispatcher's timers fire whenever it has gone to sleep.
func (q *testQueue) advanceUntil(what string, step time.Duration, cond func() bool) {
	q.t.Helper()
	q.waitFor(what, func() bool {
		if cond() {
			return true
		}
		q.clock.Advance(step)
		return false
	})
}

func TestJobRunsAtOnceAndKeepsItsResult(t *testing.T) {
	q := newQueue(t)
	d, _ := q.start(2, queue.Kind{Name: "echo",
		KeepFor: time.Hour,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			if err := j.Progress(ctx, 50, map[string]int{"at": 1}); err != nil {
				return nil, err
			}
			return map[string]string{"payload": string(j.Payload)}, nil
		},
	})
	id := q.enqueue(d, queue.JobSpec{Kind: "echo", Payload: "hi"})
	j := q.waitState(id, storage.JobCompleted)
	if string(j.Result) != `{"payload":"\"hi\""}` || j.Progress != 100 || j.Attempts != 1 || string(j.Checkpoint) != `{"at":1}` {
		t.Fatalf("job %+v", j)
	}
}

func TestJobRetriesWithBackoffThenSucceeds(t *testing.T) {
	q := newQueue(t)
	var runs atomic.Int32
	d, _ := q.start(1, queue.Kind{Name: "flaky",
		KeepFor: time.Hour,
		Retry:   queue.Retry{Backoff: queue.ExponentialBackoff(time.Minute, time.Hour)},
		Run: func(context.Context, *queue.RunningJob) (any, error) {
			if runs.Add(1) < 3 {
				return nil, errors.New("not yet")
			}
			return "ok", nil
		},
	})
	id := q.enqueue(d, queue.JobSpec{Kind: "flaky"})
	j := q.waitState(id, storage.JobQueued)
	q.waitFor("first attempt", func() bool { j = q.job(id); return j.Attempts == 1 && j.State == storage.JobQueued })
	if want := q.clock.Now().Add(time.Minute); !j.RunAt.Equal(want) || j.FailedReason != "not yet" {
		t.Fatalf("after one failure: run at %v (want %v), reason %q", j.RunAt, want, j.FailedReason)
	}
	// Not before its time.
	q.clock.Advance(59 * time.Second)
	time.Sleep(20 * time.Millisecond)
	if runs.Load() != 1 {
		t.Fatal("retried before the backoff")
	}
	q.advanceUntil("second attempt", time.Second, func() bool { return runs.Load() == 2 })
	q.waitFor("second retry scheduled", func() bool { j = q.job(id); return j.Attempts == 2 && j.State == storage.JobQueued })
	if want := q.clock.Now().Add(2 * time.Minute); !j.RunAt.Equal(want) {
		t.Fatalf("second backoff: run at %v, want %v", j.RunAt, want)
	}
	q.advanceUntil("completion", 10*time.Second, func() bool { return q.job(id).State == storage.JobCompleted })
	if j = q.job(id); j.Attempts != 3 || string(j.Result) != `"ok"` {
		t.Fatalf("job %+v", j)
	}
}

func TestJobFailsAfterMaxAttemptsOrAtOnceWhenPermanent(t *testing.T) {
	q := newQueue(t)
	var runs atomic.Int32
	d, _ := q.start(2,
		queue.Kind{Name: "always", KeepFor: time.Hour,
			Retry: queue.Retry{MaxAttempts: 2, Backoff: func(int) time.Duration { return time.Second }},
			Run:   func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); return nil, errors.New("broken") }},
		queue.Kind{Name: "permanent", KeepFor: time.Hour, Retry: queue.Retry{MaxAttempts: 5},
			Run: func(context.Context, *queue.RunningJob) (any, error) {
				return nil, queue.Permanent(errors.New("bad input"))
			}},
		queue.Kind{Name: "panics", KeepFor: time.Hour, Retry: queue.Retry{MaxAttempts: 1},
			Run: func(context.Context, *queue.RunningJob) (any, error) { panic("handler bug") }},
	)
	always := q.enqueue(d, queue.JobSpec{Kind: "always"})
	permanent := q.enqueue(d, queue.JobSpec{Kind: "permanent"})
	panics := q.enqueue(d, queue.JobSpec{Kind: "panics"})
	if j := q.waitState(permanent, storage.JobFailed); j.Attempts != 1 || j.FailedReason != "bad input" {
		t.Fatalf("permanent %+v", j)
	}
	if j := q.waitState(panics, storage.JobFailed); j.FailedReason == "" {
		t.Fatalf("panic %+v", j)
	}
	q.advanceUntil("always to fail", time.Second, func() bool { return q.job(always).State == storage.JobFailed })
	if j := q.job(always); j.Attempts != 2 || runs.Load() != 2 || j.FailedReason != "broken" {
		t.Fatalf("always %+v after %d runs", j, runs.Load())
	}
}

func TestJobConcurrencyIsBounded(t *testing.T) {
	q := newQueue(t)
	var running, peak atomic.Int32
	release := make(chan struct{})
	d, _ := q.start(2, queue.Kind{Name: "slow",
		Run: func(context.Context, *queue.RunningJob) (any, error) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-release
			running.Add(-1)
			return nil, nil
		},
	})
	var ids []string
	for range 5 {
		ids = append(ids, q.enqueue(d, queue.JobSpec{Kind: "slow"}))
	}
	q.waitFor("two running", func() bool { return running.Load() == 2 })
	time.Sleep(20 * time.Millisecond)
	if peak.Load() != 2 {
		t.Fatalf("peak %d with 2 workers", peak.Load())
	}
	close(release)
	// KeepFor 0: finished jobs are deleted.
	for _, id := range ids {
		q.waitFor("job deleted", func() bool {
			_, err := storage.JobByID(context.Background(), q.db.Reader(), q.project, id)
			return errors.Is(err, storage.ErrNotFound)
		})
	}
}

// A worker that died leaves its job active with a lease; once the lease
// runs out, another dispatcher takes it over.
func TestJobWithExpiredLeaseIsTakenOver(t *testing.T) {
	q := newQueue(t)
	started := make(chan struct{}, 1)
	work := queue.Kind{Name: "work", Lease: time.Minute, KeepFor: time.Hour,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			if j.Attempts == 1 {
				<-ctx.Done() // the first worker "dies" in the middle
				return nil, ctx.Err()
			}
			return j.Attempts, nil
		}}
	d, stop := q.start(1, work)
	id := q.enqueue(d, queue.JobSpec{Kind: "work"})
	<-started
	stop() // an orderly stop puts the job back at once, not counting the attempt ...
	if j := q.job(id); j.State != storage.JobQueued || j.Attempts != 0 || j.FailedReason != "interrupted by shutdown" {
		t.Fatalf("after shutdown %+v", j)
	}
	// ... while a crash leaves it active under its lease: simulate one by
	// claiming it as a worker would and never finishing.
	q.write(func(tx *storage.Tx) error {
		_, err := tx.ClaimJobs(context.Background(), []string{"work"}, q.clock.Now(), q.clock.Now().Add(time.Minute), 1)
		return err
	})
	q.start(1, work)
	time.Sleep(20 * time.Millisecond)
	if j := q.job(id); j.State != storage.JobActive {
		t.Fatalf("a leased job was taken before its lease ran out: %+v", j)
	}
	q.advanceUntil("takeover", 10*time.Second, func() bool { return q.job(id).State == storage.JobCompleted })
	if j := q.job(id); string(j.Result) != "2" {
		t.Fatalf("job %+v", j)
	}
}

func TestJobsSurviveARestart(t *testing.T) {
	q := newQueue(t)
	later := queue.Kind{Name: "later", KeepFor: time.Hour,
		Run: func(context.Context, *queue.RunningJob) (any, error) { return "done", nil }}
	d, stop := q.start(1, later)
	id := q.enqueue(d, queue.JobSpec{Kind: "later", RunAt: q.clock.Now().Add(time.Hour)})
	stop()
	q.db.Close()
	q.open()
	q.start(1, later)
	q.advanceUntil("job after restart", time.Minute, func() bool { return q.job(id).State == storage.JobCompleted })
}

func TestUniqueJobsAndPeriodicJobs(t *testing.T) {
	q := newQueue(t)
	var runs atomic.Int32
	d, _ := q.start(1, queue.Kind{Name: "tick", Every: time.Hour,
		Run: func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); return nil, nil }})
	id := q.enqueue(d, queue.JobSpec{Kind: "tick", UniqueKey: "tick"})
	q.enqueue(d, queue.JobSpec{Kind: "tick", UniqueKey: "tick"})
	q.waitFor("first tick", func() bool { return runs.Load() == 1 })
	q.waitFor("rescheduled", func() bool { j := q.job(id); return j.State == storage.JobQueued && j.Attempts == 0 })
	if j := q.job(id); !j.RunAt.Equal(q.clock.Now().Add(time.Hour)) {
		t.Fatalf("next tick at %v", j.RunAt)
	}
	q.advanceUntil("second tick", 10*time.Minute, func() bool { return runs.Load() == 2 })
	time.Sleep(20 * time.Millisecond)
	if runs.Load() != 2 {
		t.Fatalf("a duplicate unique job ran: %d runs", runs.Load())
	}
}

// A due job waiting for a free worker must not keep the dispatcher awake:
// it sleeps (a timer is pending) until the running job finishes.
func TestWaitingForAWorkerDoesNotSpin(t *testing.T) {
	q := newQueue(t)
	release := make(chan struct{})
	var ran atomic.Int32
	d, _ := q.startWith([]queue.Lane{{Name: "default", Workers: 1}, {Name: "slow", Workers: 1}},
		queue.Kind{Name: "slow", Lane: "slow", Run: func(context.Context, *queue.RunningJob) (any, error) {
			ran.Add(1)
			<-release
			return nil, nil
		}},
		queue.Kind{Name: "other", Run: func(context.Context, *queue.RunningJob) (any, error) { return nil, nil }},
	)
	q.enqueue(d, queue.JobSpec{Kind: "slow"})
	second := q.enqueue(d, queue.JobSpec{Kind: "slow"})
	q.waitFor("first running", func() bool { return ran.Load() == 1 })
	q.waitFor("dispatcher asleep", func() bool { return q.clock.Waiters() > 0 })
	if j := q.job(second); j.State != storage.JobQueued {
		t.Fatalf("second job %s while the only worker is busy", j.State)
	}
	close(release)
	q.waitFor("both done", func() bool { return ran.Load() == 2 })
}

// A Claimed hook runs in the claiming write; a job it reports as having
// nothing left to do is completed there and never run.
func TestClaimedHookStartsOrEndsTheJob(t *testing.T) {
	q := newQueue(t)
	var ran, hooked atomic.Int32
	d, _ := q.start(2, queue.Kind{Name: "work",
		KeepFor: time.Hour,
		Claimed: func(_ context.Context, _ *storage.Tx, j storage.Job) (bool, error) {
			hooked.Add(1)
			if j.State != storage.JobActive || j.Attempts != 1 {
				t.Errorf("hook saw %s attempt %d", j.State, j.Attempts)
			}
			return string(j.Payload) != `"skip"`, nil
		},
		Run: func(context.Context, *queue.RunningJob) (any, error) { ran.Add(1); return "ran", nil },
	})
	run := q.enqueue(d, queue.JobSpec{Kind: "work", Payload: "run"})
	skip := q.enqueue(d, queue.JobSpec{Kind: "work", Payload: "skip"})
	if j := q.waitState(run, storage.JobCompleted); string(j.Result) != `"ran"` {
		t.Fatalf("run job %+v", j)
	}
	if j := q.waitState(skip, storage.JobCompleted); j.Result != nil {
		t.Fatalf("skipped job %+v", j)
	}
	if ran.Load() != 1 || hooked.Load() != 2 {
		t.Fatalf("ran %d, hooked %d", ran.Load(), hooked.Load())
	}
}
