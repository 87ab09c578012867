package queue_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// memStore is a Store of its own kept in memory, as a kind keeping its jobs
// in the rows it works on would keep them.
type memStore struct {
	mu   sync.Mutex
	jobs []*memJob
}

type memJob struct {
	storage.Job
	active bool
	failed bool
	done   bool
}

func (s *memStore) add(id, kind string, due time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs = append(s.jobs, &memJob{Job: storage.Job{ID: id, Kind: kind, RunAt: due}})
}

func (s *memStore) get(id string) memJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.jobs {
		if j.ID == id {
			return *j
		}
	}
	return memJob{}
}

// at finds the job of id holding attempt; nil if another attempt has it.
func (s *memStore) at(j storage.Job) *memJob {
	for _, m := range s.jobs {
		if m.ID == j.ID && m.Attempts == j.Attempts && !m.done {
			return m
		}
	}
	return nil
}

func (s *memStore) Claim(_ context.Context, _ *storage.Tx, _ []string, now, leaseUntil time.Time, limit int) ([]storage.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []storage.Job
	for _, m := range s.jobs {
		due := !m.active && !m.RunAt.After(now) || m.active && !m.LeaseUntil.After(now)
		if m.done || !due || len(out) == limit {
			continue
		}
		m.active, m.Attempts, m.LeaseUntil = true, m.Attempts+1, leaseUntil
		out = append(out, m.Job)
	}
	return out, nil
}

func (s *memStore) Extend(_ context.Context, _ *storage.Tx, j storage.Job, _ int, _ []byte, leaseUntil, _ time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.at(j)
	if m != nil {
		m.LeaseUntil = leaseUntil
	}
	return m != nil, nil
}

func (s *memStore) requeue(j storage.Job, runAt time.Time, uncounted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.at(j); m != nil {
		m.active, m.RunAt = false, runAt
		if uncounted {
			m.Attempts--
		}
	}
}

func (s *memStore) Retry(_ context.Context, _ *storage.Tx, j storage.Job, runAt time.Time, _ string, _ time.Time) error {
	s.requeue(j, runAt, false)
	return nil
}

func (s *memStore) Postpone(_ context.Context, _ *storage.Tx, j storage.Job, runAt time.Time, _ string, _ time.Time) error {
	s.requeue(j, runAt, true)
	return nil
}

func (s *memStore) Release(_ context.Context, _ *storage.Tx, j storage.Job, _ string, now time.Time) error {
	s.requeue(j, now, true)
	return nil
}

func (s *memStore) Remove(_ context.Context, _ *storage.Tx, j storage.Job, failed bool, _ string, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.jobs {
		if m.ID == j.ID {
			m.done, m.failed, m.active = true, failed, false
		}
	}
	return nil
}

func (s *memStore) ResumePostponed(context.Context, *storage.Tx, string, string, time.Duration, time.Time) error {
	return nil
}

func (s *memStore) ExpireLeases(_ context.Context, _ *storage.Tx, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, m := range s.jobs {
		if m.active && !m.done {
			m.LeaseUntil, n = now, n+1
		}
	}
	return n, nil
}

func (s *memStore) NextTime(_ context.Context, _ storage.Querier, after time.Time, _ []string) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, m := range s.jobs {
		t := m.RunAt
		if m.active {
			t = m.LeaseUntil
		}
		if !m.done && t.After(after) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, !next.IsZero(), nil
}

func (s *memStore) NextRun(_ context.Context, _ storage.Querier, _ string) (time.Time, bool, error) {
	return time.Time{}, false, nil
}

func (s *memStore) Counts(context.Context, storage.Querier) ([]storage.KindStateCount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[[2]string]int{}
	for _, m := range s.jobs {
		switch {
		case m.done:
		case m.active:
			counts[[2]string{m.Kind, storage.JobActive}]++
		default:
			counts[[2]string{m.Kind, storage.JobQueued}]++
		}
	}
	var out []storage.KindStateCount
	for k, n := range counts {
		out = append(out, storage.KindStateCount{Kind: k[0], State: k[1], N: n})
	}
	return out, nil
}

// A lane claims the jobs table ahead of a store of its own: a job enqueued
// while the store's jobs run (a transactional send's delivery during a
// campaign) is the next one its slot takes, not the store's next.
func TestJobsTableRunsAheadOfAStoreOfItsOwn(t *testing.T) {
	q := newQueue(t)
	store := &memStore{}
	for _, id := range []string{"b1", "b2", "b3"} {
		store.add(id, "bulk", q.clock.Now())
	}
	var mu sync.Mutex
	var order []string
	ran := func(id string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, id)
	}
	var d *queue.Dispatcher
	ready := make(chan struct{})
	d, _ = q.start(1, queue.Kind{Name: "bulk", Store: store,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			<-ready
			ran(j.ID)
			if j.ID == "b1" {
				q.enqueue(d, queue.JobSpec{Kind: "tx"})
			}
			return nil, nil
		},
	}, queue.Kind{Name: "tx", Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
		ran("tx")
		return nil, nil
	}})
	close(ready)
	q.waitFor("every job run", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 4 })
	if want := []string{"b1", "tx", "b2", "b3"}; !equalStrings(order, want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
	if j := store.get("b3"); !j.done || j.failed || j.Attempts != 1 {
		t.Fatalf("b3 after its run: %+v", j)
	}
}

// A store's job retries with its kind's backoff, then gives up with its
// kind's outcome and leaves the store; one whose worker died is taken over
// when its lease runs out, and given up unrun if that was its last attempt.
func TestStoreJobRetriesTakesOverAndGivesUp(t *testing.T) {
	q := newQueue(t)
	store := &memStore{}
	now := q.clock.Now()
	store.add("fails", "bulk", now)
	store.add("died", "bulk", now)
	store.add("diedLast", "bulk", now)
	// Two workers died: one during its first attempt, one during its last.
	store.mu.Lock()
	store.jobs[1].active, store.jobs[1].Attempts, store.jobs[1].LeaseUntil = true, 1, now.Add(time.Minute)
	store.jobs[2].active, store.jobs[2].Attempts, store.jobs[2].LeaseUntil = true, 2, now.Add(time.Minute)
	store.mu.Unlock()
	var mu sync.Mutex
	runs := map[string]int{}
	gaveUp := map[string]string{}
	q.start(2, queue.Kind{Name: "bulk", Store: store, Lease: time.Minute,
		Retry: queue.Retry{MaxAttempts: 2, Backoff: func(int) time.Duration { return time.Minute }},
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			runs[j.ID]++
			if j.ID == "fails" {
				return nil, errors.New("no")
			}
			return nil, nil
		},
		GiveUp: queue.Then(func(_ context.Context, _ *storage.Tx, j storage.Job, cause error) error {
			mu.Lock()
			defer mu.Unlock()
			gaveUp[j.ID] = cause.Error()
			return nil
		}),
	})
	q.advanceUntil("every job ended", 30*time.Second, func() bool {
		return store.get("fails").done && store.get("died").done && store.get("diedLast").done
	})
	mu.Lock()
	defer mu.Unlock()
	if f := store.get("fails"); !f.failed || f.Attempts != 2 || runs["fails"] != 2 || gaveUp["fails"] != "no" {
		t.Errorf("the failing job: %+v, %d runs, gave up %q", f, runs["fails"], gaveUp["fails"])
	}
	if d := store.get("died"); d.failed || d.Attempts != 2 || runs["died"] != 1 {
		t.Errorf("the job taken over: %+v, %d runs", d, runs["died"])
	}
	if d := store.get("diedLast"); !d.failed || runs["diedLast"] != 0 || gaveUp["diedLast"] != "the worker stopped during the last attempt" {
		t.Errorf("the job whose last attempt died: %+v, %d runs, gave up %q", d, runs["diedLast"], gaveUp["diedLast"])
	}
}

// A kind kept in a store of its own cannot need the jobs table's rows, and
// its jobs are added to its store, not enqueued.
func TestStoreKindsAreChecked(t *testing.T) {
	q := newQueue(t)
	run := func(context.Context, *queue.RunningJob) (any, error) { return nil, nil }
	hook := queue.Then(func(context.Context, *storage.Tx, storage.Job, error) error { return nil })
	lanes := []queue.Lane{{Name: "default"}}
	for _, k := range []queue.Kind{
		{Name: "kept", Lane: "default", Run: run, Store: &memStore{}, KeepFor: time.Hour, GiveUp: queue.KeepFailedJob()},
		{Name: "periodic", Lane: "default", Run: run, Store: &memStore{}, Every: time.Hour, GiveUp: queue.Reschedule()},
		{Name: "keptOk", Lane: "default", Run: run, Store: &memStore{}, KeepFor: time.Hour, GiveUp: hook},
	} {
		if _, err := queue.New(queue.Options{DB: q.db, Lanes: lanes, Kinds: []queue.Kind{k}}); err == nil {
			t.Errorf("kind %s was accepted", k.Name)
		}
	}
	d, err := queue.New(queue.Options{DB: q.db, Lanes: lanes,
		Kinds: []queue.Kind{{Name: "bulk", Lane: "default", Run: run, Store: &memStore{}, GiveUp: hook}}})
	if err != nil {
		t.Fatal(err)
	}
	err = q.db.Write(context.Background(), func(tx *storage.Tx) error {
		_, err := d.Enqueue(context.Background(), tx, queue.JobSpec{Kind: "bulk"})
		return err
	})
	if err == nil {
		t.Fatal("a job of a store's kind was enqueued in the jobs table")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
