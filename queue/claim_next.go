package queue

import (
	"context"

	"github.com/heraldmail/herald/storage"
)

// A finishing job's slot claims the lane's next due job in the write that
// records its outcome (FinishIn, or the dispatcher's finish), and the same
// goroutine runs it next. A claim of its own would be one more committed
// write per job: on a busy delivery lane the claims and the outcomes did
// not share transactions (1.6 commits per message of a campaign), and each
// transaction writes again the pages both touch (the jobs and emails rows
// and indexes). The dispatcher's own claim still fills the slots that are
// free; this one only keeps a busy slot busy.
//
// The claim is on disk before the job runs, as a dispatcher's claim is: it
// commits with the outcome, or not at all.

// nextJob is the job claimed for a slot in its outcome's write, set once
// that write has committed.
type nextJob struct {
	job storage.Job
	ok  bool
}

// claimNext claims, inside tx, the next due job of l for a slot whose job is
// finishing. runCtx is the dispatcher's: nothing is claimed once it ends.
//
// It never fails the write: the outcome it rides with matters more (a
// delivery's, above all: failing it would send the message again). A claim
// that fails is logged and left to the dispatcher; should it fail after the
// job was marked active, the job waits for its lease to run out, as the job
// of a worker that died does.
//
// The lane's sources are asked in order, so a job of the jobs table (a
// transactional send's delivery) is taken before the next row of a store
// of its own (a campaign's email); a drained source is not asked.
func (d *Dispatcher) claimNext(runCtx context.Context, tx *storage.Tx, l *lane, next *nextJob) {
	if l == nil || next == nil || runCtx.Err() != nil {
		return
	}
	for _, s := range l.sources {
		if s.drain.drained() {
			continue
		}
		if d.claimNextFrom(runCtx, tx, l, s, next) {
			return
		}
	}
}

// claimNextFrom claims one job of s into next, and reports whether it did
// (or failed: the next source is not asked then).
func (d *Dispatcher) claimNextFrom(runCtx context.Context, tx *storage.Tx, l *lane, s *source, next *nextJob) bool {
	now := d.clock.Now()
	claimed, err := s.store.Claim(runCtx, tx, s.kinds, now, now.Add(l.maxLease), 1)
	if err == nil && len(claimed) > 0 {
		claimed, err = d.startClaimed(runCtx, tx, l, claimed, now)
	}
	if err != nil {
		d.log.Error("claim the next job with an outcome", "lane", l.name, "err", err)
		return true
	}
	if len(claimed) == 0 {
		return false
	}
	j := claimed[0]
	tx.OnCommit(func() { *next = nextJob{job: j, ok: true} })
	return true
}

// take returns the claimed job, if any, and forgets it.
func (n *nextJob) take() (storage.Job, bool) {
	j, ok := n.job, n.ok
	*n = nextJob{}
	return j, ok
}
