package app

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"

	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// CampaignBatch is how many recipients one fan-out transaction commits:
// large enough that the write lock is taken rarely, small enough that a
// batch is signed in well under a second on one core.
const CampaignBatch = 200

// fanoutCheckpoint is where a fan-out resumes after a restart: the last
// contact id whose email committed.
type fanoutCheckpoint struct {
	Started bool   `json:"started"` // totalRecipients was counted
	After   string `json:"after"`
	Done    int    `json:"done"`
}

// errSendStopped ends a fan-out whose send was cancelled or replaced.
var errSendStopped = errors.New("campaign send stopped")

// runCampaignSend runs one send: at scheduledFor it moves the campaign to
// SENDING, then walks the audience in keyset batches. Each batch is
// rendered and signed outside the write lock, then committed in one write
// with its checkpoint, so a rerun resumes after the last committed batch.
func (a *App) runCampaignSend(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p campaignSendPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	c, err := a.beginSending(ctx, p)
	if errors.Is(err, errSendStopped) || errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	err = a.fanOut(ctx, job, c)
	if errors.Is(err, errSendStopped) {
		return nil, nil
	}
	var refused *Error
	if errors.As(err, &refused) && refused.Kind == KindForbidden {
		// The sender domain lost its verification: retrying will not help,
		// and leaving the campaign SENDING would hide that it stopped.
		a.log.Warn("campaign send stopped: its sender domain is not verified", "campaign_id", c.ID,
			"project_id", c.ProjectID, "domain", c.FromDomain, "job_id", job.ID)
		return nil, a.stopSend(ctx, c)
	}
	return nil, err
}

// giveUpCampaignSend is the fan-out's terminal outcome, in the write that
// fails its job: the send stops as a cancel would (CANCELLED with what was
// queued, DRAFT again if nothing was), so the campaign never stays SENDING
// or SCHEDULED. SENT is kept for a send whose whole audience got an email.
func (a *App) giveUpCampaignSend(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) error {
	var p campaignSendPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil // it names no campaign
	}
	c, err := storage.CampaignByIDAnyProject(ctx, tx, p.CampaignID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil
	case err != nil:
		return err
	case c.SendToken != p.Token || c.Status != storage.CampaignSending && c.Status != storage.CampaignScheduled:
		return nil // a later send, or this one ended already
	}
	a.log.Warn("campaign send gave up: it stops as a cancel would", "campaign_id", c.ID,
		"project_id", c.ProjectID, "job_id", job.ID, "err", cause)
	_, _, err = a.withdrawSend(ctx, tx, c)
	return err
}

// stopSend withdraws a send that cannot go on, as a cancel would.
func (a *App) stopSend(ctx context.Context, c storage.Campaign) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if errors.Is(err, errSendStopped) {
			return nil
		}
		if err != nil {
			return err
		}
		_, _, err = a.withdrawSend(ctx, tx, cur)
		return err
	})
}

// beginSending moves a scheduled campaign whose time has come to SENDING.
func (a *App) beginSending(ctx context.Context, p campaignSendPayload) (c storage.Campaign, err error) {
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		if c, err = storage.CampaignByIDAnyProject(ctx, tx, p.CampaignID); err != nil {
			return err
		}
		if c.SendToken != p.Token {
			return errSendStopped
		}
		if c.Status == storage.CampaignScheduled {
			now := a.now()
			c.Status, c.SentAt, c.UpdatedAt = storage.CampaignSending, &now, now
			return tx.UpdateCampaign(ctx, c)
		}
		if c.Status != storage.CampaignSending {
			return errSendStopped
		}
		return nil
	})
	return c, err
}

// currentSend re-reads the campaign inside a write: a batch commits only
// while its send is still the campaign's current one.
func currentSend(ctx context.Context, tx *storage.Tx, c storage.Campaign) (storage.Campaign, error) {
	cur, err := storage.CampaignByIDAnyProject(ctx, tx, c.ID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && (cur.SendToken != c.SendToken || cur.Status != storage.CampaignSending) {
		return cur, errSendStopped
	}
	return cur, err
}

func (a *App) fanOut(ctx context.Context, job *queue.RunningJob, c storage.Campaign) error {
	out, err := a.campaignOutgoing(ctx, c)
	if err != nil {
		return err
	}
	aud, err := a.campaignAudience(ctx, c)
	if err != nil {
		return err
	}
	aud.SubscribedOnly = out.marketing
	var cp fanoutCheckpoint
	if len(job.Checkpoint) > 0 {
		if err := json.Unmarshal(job.Checkpoint, &cp); err != nil {
			return queue.Permanent(err)
		}
	}
	if !cp.Started {
		if err := a.countRecipients(ctx, job, c, aud, &cp); err != nil {
			return err
		}
	}
	for {
		a.paceFanout(ctx)
		contacts, err := storage.AudienceBatch(ctx, a.db.Reader(), aud, cp.After, CampaignBatch)
		if err != nil {
			return err
		}
		if len(contacts) == 0 {
			return a.finishFanout(ctx, c)
		}
		emails, err := a.buildCampaignEmails(ctx, out, c, contacts)
		if err != nil {
			return err
		}
		cp.After, cp.Done = contacts[len(contacts)-1].ID, cp.Done+len(emails)
		if err := a.commitBatch(ctx, job, c, emails, cp); err != nil {
			return err
		}
		if len(contacts) < CampaignBatch {
			return a.finishFanout(ctx, c)
		}
	}
}

// countRecipients stores totalRecipients when the fan-out starts.
func (a *App) countRecipients(ctx context.Context, job *queue.RunningJob, c storage.Campaign, aud Audience, cp *fanoutCheckpoint) error {
	n, err := storage.CountAudience(ctx, a.db.Reader(), aud)
	if err != nil {
		return err
	}
	cp.Started = true
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if err != nil {
			return err
		}
		cur.TotalRecipients = n
		if err := tx.UpdateCampaign(ctx, cur); err != nil {
			return err
		}
		return job.SaveProgress(ctx, tx, 0, *cp)
	})
}

func (a *App) commitBatch(ctx context.Context, job *queue.RunningJob, c storage.Campaign, emails []storage.Email, cp fanoutCheckpoint) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if err != nil {
			return err
		}
		for _, e := range emails {
			queue := a.queueCampaignEmail
			if e.Status == storage.EmailFailed {
				queue = a.queueFailedEmail
			}
			if err := queue(ctx, tx, e); err != nil {
				return err
			}
		}
		if err := a.jobs.Queued(tx, JobDeliverCampaign); err != nil {
			return err
		}
		return job.SaveProgress(ctx, tx, min(99, cp.Done*100/max(1, cur.TotalRecipients)), cp)
	})
}

// finishFanout records that every recipient has an email row: the total
// becomes the number of rows, and the campaign is SENT at once if every
// email already reached a final state (or there were none).
func (a *App) finishFanout(ctx context.Context, c storage.Campaign) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if err != nil {
			return err
		}
		n, err := storage.CountCampaignEmails(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		cur.FanoutDone, cur.TotalRecipients, cur.UpdatedAt = true, n.Emails, a.now()
		if err := tx.UpdateCampaign(ctx, cur); err != nil {
			return err
		}
		_, err = tx.FinishCampaign(ctx, c.ID, a.now())
		return err
	})
}

// campaignOutgoing prepares what every message of the campaign shares.
func (a *App) campaignOutgoing(ctx context.Context, c storage.Campaign) (*outgoing, error) {
	project, err := storage.ProjectByID(ctx, a.db.Reader(), c.ProjectID)
	if err != nil {
		return nil, err
	}
	out := &outgoing{projectID: c.ProjectID, tracking: project.TrackingEnabled, subject: c.Subject, body: c.Body,
		from: message.Address{Email: c.From, Name: deref(c.FromName)}, fromDomain: c.FromDomain,
		marketing: c.Type == TemplateMarketing}
	if c.ReplyTo != nil {
		out.replyTo = &message.Address{Email: *c.ReplyTo}
	}
	out.signer, err = a.signerFor(ctx, c.ProjectID, c.FromDomain)
	return out, err
}

// campaignAudience compiles the campaign's audience now. Marketing sends
// then keep only subscribed contacts.

func (a *App) campaignAudience(ctx context.Context, c storage.Campaign) (Audience, error) {
	q := a.db.Reader()
	switch c.AudienceType {
	case AudienceSegment:
		g, err := storage.SegmentByID(ctx, q, c.ProjectID, deref(c.SegmentID))
		if err != nil {
			return Audience{}, err
		}
		return a.SegmentAudience(ctx, q, g)
	case AudienceFiltered:
		cond, err := ParseCondition(c.AudienceCondition, "audienceCondition")
		if err != nil {
			return Audience{}, err
		}
		return a.ConditionAudience(ctx, q, c.ProjectID, cond)
	}
	return Audience{ProjectID: c.ProjectID}, nil
}

// buildCampaignEmails renders, builds and signs one message per contact
// on every core: signing dominates a fan-out's cost.
func (a *App) buildCampaignEmails(ctx context.Context, out *outgoing, c storage.Campaign, contacts []storage.Contact) ([]storage.Email, error) {
	emails := make([]storage.Email, len(contacts))
	errs := make([]error, len(contacts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(contacts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				emails[i], errs[i] = a.fanoutEmail(ctx, out, c, contacts[i])
			}
		}()
	}
	for i := range contacts {
		next <- i
	}
	close(next)
	wg.Wait()
	return emails, errors.Join(errs...)
}

func (a *App) campaignEmail(ctx context.Context, out *outgoing, c storage.Campaign, ct storage.Contact) (storage.Email, error) {
	data, err := jsondata.Decode(ct.Data)
	if err != nil {
		return storage.Email{}, err
	}
	linkID := ct.ID
	if out.test {
		linkID = testSendContact
	}
	vars, err := a.renderVarsLinking(ctx, c.ProjectID, ct.ID, linkID, ct.Email, data)
	if err != nil {
		return storage.Email{}, err
	}
	e := storage.Email{ID: newID(), ProjectID: c.ProjectID, ContactID: ct.ID, CampaignID: c.ID,
		MessageID: message.NewMessageID(out.fromDomain), Sender: out.from.Email, Recipient: ct.Email,
		Marketing: out.marketing, Status: storage.EmailPending, CreatedAt: a.now()}
	return e, a.compose(ctx, out, message.Address{Email: ct.Email}, &e, vars)
}

// fanoutEmail is campaignEmail for one recipient of a send.
func (a *App) fanoutEmail(ctx context.Context, out *outgoing, c storage.Campaign, ct storage.Contact) (storage.Email, error) {
	e, err := a.campaignEmail(ctx, out, c, ct)
	var invalid *Error
	if errors.As(err, &invalid) && invalid.Kind == KindValidation {
		// This contact's data cannot make a message (a render error, a
		// bound, a header the builder refuses): retrying will not change
		// that, and the rest of the audience must not wait on it.
		e.Status, e.LastResponse, e.Raw = storage.EmailFailed, "not sent: "+invalid.Message, nil
		return e, nil
	}
	return e, err
}

// EventFailed is emitted for an email that failed for good before any
// server accepted or refused it: its message could not be made (a render
// error on the contact's data), or its delivery gave up.
const EventFailed = "email.failed"

// queueFailedEmail records an email whose message could not be made as
// FAILED with its reason, visible in the campaign's stats and the
// contact's events.
func (a *App) queueFailedEmail(ctx context.Context, tx *storage.Tx, e storage.Email) error {
	reason := e.LastResponse
	e.Status = storage.EmailPending
	if err := tx.InsertEmail(ctx, e); err != nil {
		return err
	}
	if _, err := tx.FailEmail(ctx, e.ID, reason, a.now()); err != nil {
		return err
	}
	return a.emitEmailEvent(ctx, tx, e, EventFailed, map[string]any{"reason": reason})
}
