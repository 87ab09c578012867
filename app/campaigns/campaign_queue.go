package campaigns

import (
	"context"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
)

// A campaign's deliveries have no job row each: the email row is its own
// queue entry (storage/email_queue.go), kept in the delivery lane by the
// JobDeliverCampaign kind, whose store this is. The fan-out inserts the
// emails due at once; the dispatcher claims them with a lease, marking
// them SENDING and counting the attempt in the same UPDATE; the attempt's
// outcome takes them out of the queue (a final status) or puts them back
// for a retry. Retries, postponements, give-ups, leases and their expiry
// after a crash are the dispatcher's, as for any job; the job's id is the
// email's. A transactional send's delivery (JobDeliver, in the jobs table)
// is claimed ahead of them in the same lane.
type Queue struct{ handoff *messaging.Handoff }

// NewQueue is the store of campaign emails, whose claims put the claimed
// messages in h.
func NewQueue(h *messaging.Handoff) Queue { return Queue{handoff: h} }

func (q Queue) Claim(ctx context.Context, tx *storage.Tx, _ []string, now, leaseUntil time.Time, limit int) ([]storage.Job, error) {
	var claimed []storage.QueuedEmail
	var err error
	if limit == 1 {
		claimed, err = tx.ClaimQueuedEmail(ctx, now, leaseUntil)
	} else {
		claimed, err = tx.ClaimQueuedEmails(ctx, now, leaseUntil, limit)
	}
	if err != nil || len(claimed) == 0 {
		return nil, err
	}
	jobs := make([]storage.Job, len(claimed))
	for i, c := range claimed {
		jobs[i] = storage.Job{ID: c.ID, ProjectID: c.ProjectID, Kind: messaging.JobDeliverCampaign, State: storage.JobActive,
			Attempts: c.Attempts, LeaseUntil: c.LeaseUntil, CreatedAt: c.CreatedAt, UpdatedAt: now}
	}
	// The claim returned the rows: the attempts need not read them again.
	tx.OnCommit(func() {
		for _, c := range claimed {
			q.handoff.PutClaimed(c.Email)
		}
	})
	return jobs, nil
}

func (Queue) Extend(ctx context.Context, tx *storage.Tx, j storage.Job, _ int, _ []byte, leaseUntil, now time.Time) (bool, error) {
	return tx.ExtendQueuedEmail(ctx, j.ID, j.Attempts, leaseUntil, now)
}

func (Queue) Retry(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, _ string, now time.Time) error {
	return tx.RequeueEmail(ctx, j.ID, j.Attempts, runAt, false, now)
}

// Postpone hands the attempt back uncounted: the email is PENDING again and
// its attempt taken back, as UndoAttempt does for a job's email.
func (Queue) Postpone(ctx context.Context, tx *storage.Tx, j storage.Job, runAt time.Time, _ string, now time.Time) error {
	return tx.RequeueEmail(ctx, j.ID, j.Attempts, runAt, true, now)
}

func (Queue) Release(ctx context.Context, tx *storage.Tx, j storage.Job, _ string, now time.Time) error {
	return tx.RequeueEmail(ctx, j.ID, j.Attempts, now, true, now)
}

// Remove takes the email out of the queue. Its outcome already did when it
// recorded a final status; a give-up's hook marked it FAILED, except when
// the hook itself failed: it is then FAILED here, without its event, so
// that it does not stay waiting.
func (Queue) Remove(ctx context.Context, tx *storage.Tx, j storage.Job, failed bool, reason string, now time.Time) error {
	if failed {
		reason, _, _ = strings.Cut(reason, "\n") // a panic's stack stays in the log
		if _, err := tx.FailEmail(ctx, j.ID, "gave up: "+reason, now); err != nil {
			return err
		}
	}
	return tx.UnqueueEmail(ctx, j.ID)
}

// ResumePostponed makes due now the emails waiting at most within: the
// email row keeps no reason, so a retry due that soon comes early too.
func (Queue) ResumePostponed(ctx context.Context, tx *storage.Tx, _, _ string, within time.Duration, now time.Time) error {
	return tx.ResumeQueuedEmails(ctx, now, now.Add(within))
}

func (Queue) ExpireLeases(ctx context.Context, tx *storage.Tx, now time.Time) (int64, error) {
	return tx.ExpireEmailLeases(ctx, now)
}

func (Queue) NextTime(ctx context.Context, q storage.Querier, after time.Time, _ []string) (time.Time, bool, error) {
	return storage.NextQueuedEmailTime(ctx, q, after)
}

func (Queue) NextRun(ctx context.Context, q storage.Querier, _ string) (time.Time, bool, error) {
	return storage.NextQueuedEmailRun(ctx, q)
}

// Counts counts the emails waiting and being attempted; a given-up one is
// FAILED in its campaign's stats, not a failed job.
func (Queue) Counts(ctx context.Context, q storage.Querier) ([]storage.KindStateCount, error) {
	pending, sending, err := storage.QueuedEmailCounts(ctx, q)
	return []storage.KindStateCount{{Kind: messaging.JobDeliverCampaign, State: storage.JobQueued, N: pending},
		{Kind: messaging.JobDeliverCampaign, State: storage.JobActive, N: sending}}, err
}

// queueCampaignEmail stores a campaign's email as its own delivery queue
// entry, with its email.sent event, and once they are committed hands the
// bytes to the first attempt. The fan-out's batch tells the dispatcher
// once (a.jobs.Queued).
func (s *Service) queueCampaignEmail(ctx context.Context, tx *storage.Tx, e storage.Email) error {
	e.SelfQueued = true
	if err := tx.InsertEmail(ctx, e); err != nil {
		return err
	}
	tx.OnCommit(func() { s.handoff.Put(e.ID, e.Raw, e.CreatedAt) })
	return s.messaging.EmitEmailEvent(ctx, tx, e, event.EventSent, map[string]any{"openTracked": e.OpenTracked})
}
