package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmail/herald/storage"
)

// JobSpec describes a job to enqueue.
type JobSpec struct {
	Kind      string
	ProjectID string
	Payload   any
	RunAt     time.Time // zero: now
	UniqueKey string    // enqueue is a no-op while a job with this key exists
}

// Enqueue adds a job inside the caller's write, so the job exists if and
// only if the caller's changes commit; the dispatcher wakes on commit.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *storage.Tx, s JobSpec) (_ string, err error) {
	defer wrap(&err, "Dispatcher.Enqueue")
	k, ok := d.kinds[s.Kind]
	if !ok {
		return "", fmt.Errorf("no handler for job kind %q", s.Kind)
	}
	if _, jobs := k.Store.(jobsTable); !jobs {
		return "", fmt.Errorf("job kind %q keeps its jobs in a store of its own: add them there and call Queued", s.Kind)
	}
	payload, err := json.Marshal(s.Payload)
	if err != nil {
		return "", fmt.Errorf("job kind %q: payload: %w", s.Kind, err)
	}
	now := d.clock.Now()
	if s.RunAt.IsZero() {
		s.RunAt = now
	}
	j := storage.Job{ID: uuid.Must(uuid.NewV7()).String(), ProjectID: s.ProjectID, Kind: s.Kind, Payload: payload,
		RunAt: s.RunAt, MaxAttempts: k.Retry.MaxAttempts, UniqueKey: s.UniqueKey, CreatedAt: now}
	if _, err := tx.InsertJob(ctx, j); err != nil {
		return "", err
	}
	d.wakeOnCommit(tx, k)
	return j.ID, nil
}

// Queued tells the dispatcher, once tx commits, that jobs of a kind kept
// in a store of its own were added in tx: its source has work again.
func (d *Dispatcher) Queued(tx *storage.Tx, kindName string) (err error) {
	defer wrap(&err, "Dispatcher.Queued")
	k, ok := d.kinds[kindName]
	if !ok {
		return fmt.Errorf("no job kind %q", kindName)
	}
	d.wakeOnCommit(tx, k)
	return nil
}

// wakeOnCommit undrains k's source and wakes the dispatcher once tx
// commits.
func (d *Dispatcher) wakeOnCommit(tx *storage.Tx, k *kind) {
	tx.OnCommit(func() {
		k.src.drain.changed()
		d.Wake()
	})
}

// SchedulePeriodic makes sure each periodic kind has its job, once: the
// kind's name is the job's unique key, so restarts add no copies.
func (d *Dispatcher) SchedulePeriodic(ctx context.Context) (err error) {
	defer wrap(&err, "Dispatcher.SchedulePeriodic")
	return d.db.Write(ctx, func(tx *storage.Tx) error {
		for _, k := range d.table {
			if k.Every == 0 {
				continue
			}
			if _, err := d.Enqueue(ctx, tx, JobSpec{Kind: k.Name, UniqueKey: k.Name}); err != nil {
				return err
			}
		}
		return nil
	})
}

// RecoverInterrupted ends the leases of the jobs a previous server left
// active when it died, so that they are claimed now rather than when their
// leases run out: run again, or given up if that was their last attempt.
// Call it before Run, and only while holding the data directory's lock.
func (d *Dispatcher) RecoverInterrupted(ctx context.Context) (err error) {
	defer wrap(&err, "Dispatcher.RecoverInterrupted")
	stores, _ := d.stores()
	return d.db.Write(ctx, func(tx *storage.Tx) error {
		var total int64
		for _, s := range stores {
			n, err := s.ExpireLeases(ctx, tx, d.clock.Now())
			if err != nil {
				return err
			}
			total += n
		}
		if total > 0 {
			d.log.Info("jobs interrupted by the last shutdown are due again", "jobs", total)
		}
		return nil
	})
}
