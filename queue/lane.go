package queue

import (
	"sync/atomic"
	"time"
)

// lane is a running Lane: its free slots, the sources it claims from and
// the longest lease its kinds ask for.
type lane struct {
	name     string
	slots    chan struct{}
	sources  []*source     // in claim order: the jobs table first
	maxLease time.Duration // the lease a claim takes: the longest its kinds ask for
}

// source is the part of a lane kept in one Store: the kinds it claims there
// and its drain state. A lane claims its sources in order, the jobs table
// first, so that a job there (a transactional send's delivery) never waits
// behind the rows of a store of its own (a campaign's emails): a slot that
// frees up takes the job table's first, and a drained source costs no
// query.
type source struct {
	store Store
	kinds []string
	drain drainState
}

// sourceFor returns the lane's source for store, adding it (the jobs table
// ahead of the others).
func (l *lane) sourceFor(store Store) *source {
	for _, s := range l.sources {
		if s.store == store {
			return s
		}
	}
	s := &source{store: store}
	if _, jobs := store.(jobsTable); jobs {
		l.sources = append([]*source{s}, l.sources...)
	} else {
		l.sources = append(l.sources, s)
	}
	return s
}

// drainState remembers that a claim found a source empty, so that a busy
// lane's completions do not make every other lane query the queue. Any
// change that may give the source due work (an enqueue, a retry, the clock
// reaching the next due time) bumps changes; the source counts as drained
// only while no change happened since the claim that found it empty, so a
// job enqueued while that claim was under way is never overlooked.
type drainState struct {
	changes atomic.Uint64
	emptyAt atomic.Uint64 // changes+1 as read before the claim that found the source empty; 0: never
	// at is the time of that claim: every job of the source due by then
	// was seen. Only the Run goroutine uses it.
	at time.Time
}

// version is read before a claim and passed to markEmpty after it.
func (s *drainState) version() uint64 { return s.changes.Load() }

func (s *drainState) markEmpty(version uint64, at time.Time) {
	s.at = at
	s.emptyAt.Store(version + 1)
}

func (s *drainState) drained() bool { return s.emptyAt.Load() == s.changes.Load()+1 }

// changed notes that the source may have due work.
func (s *drainState) changed() { s.changes.Add(1) }
