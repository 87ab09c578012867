package queue_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// gaveUp records the calls of a give-up hook, and marks each in the
// database (a project named after the job) to show it committed with the
// job's failure.
type gaveUp struct {
	mu     sync.Mutex
	causes map[string]string // job id → cause
	fail   bool              // the hook writes, then returns an error
}

func (g *gaveUp) hook(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
	now := time.Unix(0, 0)
	if err := tx.InsertProject(ctx, storage.Project{ID: "gave-up-" + j.ID, Name: j.Kind, Public: "pk_" + j.ID,
		Secret: "sk_" + j.ID, CreatedAt: now, UpdatedAt: now}); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.causes == nil {
		g.causes = map[string]string{}
	}
	g.causes[j.ID] = cause.Error()
	if g.fail {
		return errors.New("hook broke")
	}
	return nil
}

func (g *gaveUp) cause(id string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.causes[id]
	return c, ok
}

// marked reports whether the hook's write for job id committed.
func (q *testQueue) marked(id string) bool {
	_, err := storage.ProjectByID(context.Background(), q.db.Reader(), "gave-up-"+id)
	return err == nil
}

func TestGiveUpHookCommitsWithTheFailedJob(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var g gaveUp
	d, _ := q.start(1, queue.Kind{Name: "always", GiveUp: queue.Then(g.hook),
		Retry: queue.Retry{MaxAttempts: 2, Backoff: func(int) time.Duration { return time.Second }},
		Run:   func(context.Context, *queue.RunningJob) (any, error) { return nil, errors.New("broken") }})
	id := q.enqueue(d, queue.JobSpec{Kind: "always"})
	q.waitFor("first attempt", func() bool { return q.job(id).Attempts == 1 && q.job(id).State == storage.JobQueued })
	if _, called := g.cause(id); called || q.marked(id) {
		t.Fatal("gave up before the last attempt")
	}
	q.advanceUntil("give-up", time.Second, func() bool { return q.job(id).State == storage.JobFailed })
	j := q.job(id)
	if cause, _ := g.cause(id); cause != "broken" || !q.marked(id) || j.Attempts != 2 || j.FailedReason != "broken" {
		t.Fatalf("job %+v, hook cause %q, marked %v", j, cause, q.marked(id))
	}
}

// A hook that fails leaves nothing of its own write, and the job is failed
// without it rather than left active.
func TestFailingGiveUpHookStillEndsTheJob(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	g := gaveUp{fail: true}
	d, _ := q.start(1, queue.Kind{Name: "bad", GiveUp: queue.Then(g.hook),
		Run: func(context.Context, *queue.RunningJob) (any, error) {
			return nil, queue.Permanent(errors.New("bad input"))
		}})
	id := q.enqueue(d, queue.JobSpec{Kind: "bad"})
	j := q.waitState(id, storage.JobFailed)
	if _, called := g.cause(id); !called || q.marked(id) || j.FailedReason != "bad input" {
		t.Fatalf("job %+v, marked %v", j, q.marked(id))
	}
}

func TestPanickingHandlerEndsAtItsAttemptLimit(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var g gaveUp
	var runs atomic.Int32
	d, _ := q.start(1, queue.Kind{Name: "panics", GiveUp: queue.Then(g.hook),
		Retry: queue.Retry{MaxAttempts: 3, Backoff: func(int) time.Duration { return time.Second }},
		Run:   func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); panic("handler bug") }})
	id := q.enqueue(d, queue.JobSpec{Kind: "panics"})
	q.advanceUntil("give-up", time.Second, func() bool { return q.job(id).State == storage.JobFailed })
	j := q.job(id)
	cause, _ := g.cause(id)
	if runs.Load() != 3 || j.Attempts != 3 || !strings.HasPrefix(cause, "panic: handler bug") || !q.marked(id) {
		t.Fatalf("job %+v after %d runs, cause %q", j, runs.Load(), cause)
	}
}

// die claims a job as a worker would and lets its lease run out, as if the
// worker had died; it returns the attempt it took.
func (q *testQueue) die(kind string) storage.Job {
	q.t.Helper()
	var claimed []storage.Job
	now := q.clock.Now()
	q.write(func(tx *storage.Tx) error {
		var err error
		claimed, err = tx.ClaimJobs(context.Background(), []string{kind}, now, now.Add(time.Minute), 1)
		return err
	})
	if len(claimed) != 1 {
		q.t.Fatalf("claimed %d jobs of %s", len(claimed), kind)
	}
	q.clock.Advance(time.Minute)
	return claimed[0]
}

// A job whose worker dies during every attempt (a handler that kills the
// process) is given up by the claim after its last one, not run again.
func TestJobWhoseWorkerDiesEveryAttemptIsGivenUp(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var g gaveUp
	var runs atomic.Int32
	kind := queue.Kind{Name: "deadly", GiveUp: queue.Then(g.hook), Lease: time.Minute, Retry: queue.Retry{MaxAttempts: 2},
		Run: func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); return nil, nil }}
	d, stop := q.start(1, kind)
	stop()
	id := q.enqueue(d, queue.JobSpec{Kind: "deadly"})
	for range 2 {
		q.die("deadly")
	}
	q.start(1, kind)
	j := q.waitState(id, storage.JobFailed)
	cause, _ := g.cause(id)
	if runs.Load() != 0 || j.Attempts != 2 || cause != "the worker stopped during the last attempt" ||
		j.FailedReason != cause || !q.marked(id) {
		t.Fatalf("job %+v after %d runs, cause %q", j, runs.Load(), cause)
	}
}

// At start, jobs a crash left active are claimed at once: run again if
// attempts remain, given up if that was their last.
func TestRecoverInterruptedRerunsOrGivesUp(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var g gaveUp
	var runs atomic.Int32
	kinds := []queue.Kind{
		{Name: "again", Lease: time.Hour, KeepFor: time.Hour, Retry: queue.Retry{MaxAttempts: 3}, GiveUp: queue.KeepFailedJob(),
			Run: func(_ context.Context, j *queue.RunningJob) (any, error) { runs.Add(1); return j.Attempts, nil }},
		{Name: "last", Lease: time.Hour, Retry: queue.Retry{MaxAttempts: 1}, GiveUp: queue.Then(g.hook),
			Run: func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); return nil, nil }},
	}
	d, stop := q.start(1, kinds...)
	stop()
	again := q.enqueue(d, queue.JobSpec{Kind: "again"})
	last := q.enqueue(d, queue.JobSpec{Kind: "last"})
	q.write(func(tx *storage.Tx) error { // the crash: both active under a long lease
		now := q.clock.Now()
		_, err := tx.ClaimJobs(context.Background(), []string{"again", "last"}, now, now.Add(time.Hour), 2)
		return err
	})
	d2, _ := q.start(1, kinds...)
	if err := d2.RecoverInterrupted(context.Background()); err != nil {
		t.Fatal(err)
	}
	d2.Wake()
	if j := q.waitState(again, storage.JobCompleted); string(j.Result) != "2" {
		t.Fatalf("rerun %+v", j)
	}
	if j := q.waitState(last, storage.JobFailed); j.Attempts != 1 || !q.marked(last) {
		t.Fatalf("given up %+v", j)
	}
	if runs.Load() != 1 {
		t.Fatalf("%d runs, want the one rerun", runs.Load())
	}
}

// Shutdown during the last attempt is not a failure: the job runs again.
func TestShutdownDuringTheLastAttemptDoesNotGiveUp(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var g gaveUp
	started := make(chan struct{})
	var runs atomic.Int32
	kind := queue.Kind{Name: "once", KeepFor: time.Hour, Retry: queue.Retry{MaxAttempts: 1}, GiveUp: queue.Then(g.hook),
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			if runs.Add(1) == 1 {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return "done", nil
		}}
	d, stop := q.start(1, kind)
	id := q.enqueue(d, queue.JobSpec{Kind: "once"})
	<-started
	stop()
	q.start(1, kind)
	if j := q.waitState(id, storage.JobCompleted); j.Attempts != 1 || q.marked(id) {
		t.Fatalf("job %+v", j)
	}
}

func TestFailingPeriodicJobWaitsForItsNextPeriod(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	var runs atomic.Int32
	d, _ := q.start(1, queue.Kind{Name: "tick", Every: time.Hour, Retry: queue.Retry{MaxAttempts: 1},
		Run: func(context.Context, *queue.RunningJob) (any, error) { runs.Add(1); return nil, errors.New("flaky") }})
	id := q.enqueue(d, queue.JobSpec{Kind: "tick", UniqueKey: "tick"})
	q.waitFor("rescheduled", func() bool { j := q.job(id); return runs.Load() == 1 && j.State == storage.JobQueued })
	if j := q.job(id); j.Attempts != 0 || !j.RunAt.Equal(q.clock.Now().Add(time.Hour)) {
		t.Fatalf("after a failed round %+v", j)
	}
}
