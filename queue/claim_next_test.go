package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// enqueueAll queues n jobs of a kind in one write, so that a dispatcher
// finds them all due at once.
func (q *testQueue) enqueueAll(d *queue.Dispatcher, kind string, n int) {
	q.t.Helper()
	q.write(func(tx *storage.Tx) error {
		for i := 0; i < n; i++ {
			if _, err := d.Enqueue(context.Background(), tx, queue.JobSpec{Kind: kind, ProjectID: q.project, Payload: i}); err != nil {
				return err
			}
		}
		return nil
	})
}

// states counts the jobs of a kind by state.
func (q *testQueue) states(kind string) map[string]int {
	q.t.Helper()
	counts, err := storage.JobCounts(context.Background(), q.db.Reader())
	if err != nil {
		q.t.Fatal(err)
	}
	out := map[string]int{}
	for _, c := range counts {
		if c.Kind == kind {
			out[c.State] = c.N
		}
	}
	return out
}

// The write in which a handler finishes its job (FinishIn) also claims the
// lane's next due job for the same slot: once it has committed, the next
// job is already active, though the lane's only slot is still taken.
func TestFinishInClaimsTheNextJobInTheSameWrite(t *testing.T) {
	q := newQueue(t)
	var mu sync.Mutex
	var seen []map[string]int
	release := make(chan struct{})
	d, _ := q.start(1, queue.Kind{Name: "work",
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			<-release
			if err := q.db.Write(ctx, func(tx *storage.Tx) error { return j.FinishIn(ctx, tx) }); err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, q.states("work"))
			return nil, nil
		},
	})
	q.enqueueAll(d, "work", 3)
	close(release)
	q.waitFor("every job run", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 3 })
	want := []map[string]int{{"active": 1, "queued": 1}, {"active": 1}, {}}
	for i := range want {
		if !sameCounts(seen[i], want[i]) {
			t.Fatalf("after job %d's write: %v, want %v", i+1, seen[i], want[i])
		}
	}
}

// The dispatcher's own outcome write claims the next job too: jobs run
// one after another in a slot take one write each, not a claim and an
// outcome each.
func TestOutcomeWriteClaimsTheNextJob(t *testing.T) {
	q := newQueue(t)
	ran := make(chan struct{}, 8)
	release := make(chan struct{})
	d, _ := q.start(1, queue.Kind{Name: "work", KeepFor: time.Hour,
		Run: func(context.Context, *queue.RunningJob) (any, error) {
			<-release
			ran <- struct{}{}
			return "done", nil
		},
	})
	q.enqueueAll(d, "work", 4)
	q.waitFor("the first job claimed", func() bool { return q.states("work")["active"] == 1 })
	before := q.commits.Load()
	close(release)
	q.waitFor("every job run", func() bool { return q.states("work")["queued"]+q.states("work")["active"] == 0 })
	// Four outcomes, three of them claiming the next job, and at most
	// the dispatcher's claim that finds the lane empty once the slot is
	// free: a claim of its own per job would be three writes more.
	if n := q.commits.Load() - before; n > 5 {
		t.Fatalf("%d writes for 4 jobs run in one slot", n)
	}
	if len(ran) != 4 {
		t.Fatalf("ran %d jobs", len(ran))
	}
}

func sameCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
