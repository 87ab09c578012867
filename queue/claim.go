package queue

import (
	"context"
	"time"

	"github.com/heraldmail/herald/storage"
)

func (d *Dispatcher) claimAndStart(ctx context.Context) {
	for _, l := range d.lanes {
		d.claimLane(ctx, l)
	}
}

// claimLane fills the lane's free slots from its sources, in order.
func (d *Dispatcher) claimLane(ctx context.Context, l *lane) {
	for _, s := range l.sources {
		d.claimSource(ctx, l, s)
	}
}

func (d *Dispatcher) claimSource(ctx context.Context, l *lane, s *source) {
	free := cap(l.slots) - len(l.slots)
	if free == 0 || s.drain.drained() || len(s.kinds) == 0 || ctx.Err() != nil {
		return
	}
	version := s.drain.version()
	var jobs []storage.Job
	var now time.Time
	var claimedN int
	err := d.db.Write(ctx, func(tx *storage.Tx) error {
		now = d.clock.Now()
		// Claim with the longest lease the lane's kinds use; each kind's
		// own lease applies from its first Progress call.
		claimed, err := s.store.Claim(ctx, tx, s.kinds, now, now.Add(l.maxLease), free)
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
		s.drain.markEmpty(version, now)
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
// the jobs left to run; the others are completed in the same write. A job
// claimed past its last attempt (its worker died during that attempt) is
// not started: run gives it up.
func (d *Dispatcher) startClaimed(ctx context.Context, tx *storage.Tx, l *lane, claimed []storage.Job, now time.Time) ([]storage.Job, error) {
	jobs := claimed[:0:0]
	for _, j := range claimed {
		k, ok := d.kinds[j.Kind]
		if ok && j.MaxAttempts == 0 {
			j.MaxAttempts = k.Retry.MaxAttempts // a store of its own need not keep it
		}
		if !ok || k.Claimed == nil || exhausted(j) {
			jobs = append(jobs, j)
			continue
		}
		run, err := k.Claimed(ctx, tx, j)
		switch {
		case err != nil:
			return nil, err
		case run:
			jobs = append(jobs, j)
		default:
			if err := d.complete(ctx, tx, j, k, nil, now); err != nil {
				return nil, err
			}
		}
	}
	return jobs, nil
}

// exhausted reports whether a claimed job had used all its attempts: every
// claim counts one, so this one is past the limit. Only a job whose worker
// stopped during its last attempt (a crash, a panic that killed the
// process, a lost lease) comes back so.
func exhausted(j storage.Job) bool { return j.Attempts > j.MaxAttempts }
