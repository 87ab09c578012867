package queue

import (
	"sync/atomic"
	"time"
)

// lane is a running Lane: its free slots, the kinds it claims and its
// drain state.
type lane struct {
	name     string
	slots    chan struct{}
	kinds    []string
	maxLease time.Duration // the lease a claim takes: the longest its kinds ask for
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
