package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/tracking"
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
func (s *Service) RunCampaignSend(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p campaignSendPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	c, err := s.beginSending(ctx, p)
	if errors.Is(err, errSendStopped) || errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	err = s.fanOut(ctx, job, c)
	if errors.Is(err, errSendStopped) {
		return nil, nil
	}
	var refused *apierr.Error
	if errors.As(err, &refused) && refused.Kind == apierr.KindForbidden {
		// The sender domain lost its verification: retrying will not help,
		// and leaving the campaign SENDING would hide that it stopped.
		s.log.Warn("campaign send stopped: its sender domain is not verified", "campaign_id", c.ID,
			"project_id", c.ProjectID, "domain", c.FromDomain, "job_id", job.ID)
		return nil, s.stopSend(ctx, c)
	}
	return nil, err
}

// giveUpCampaignSend is the fan-out's terminal outcome, in the write that
// fails its job: the send stops as a cancel would (CANCELLED with what was
// queued, DRAFT again if nothing was), so the campaign never stays SENDING
// or SCHEDULED. SENT is kept for a send whose whole audience got an email.
func (s *Service) GiveUpCampaignSend(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) error {
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
	s.log.Warn("campaign send gave up: it stops as a cancel would", "campaign_id", c.ID,
		"project_id", c.ProjectID, "job_id", job.ID, "err", cause)
	_, _, err = s.withdrawSend(ctx, tx, c)
	return err
}

// stopSend withdraws a send that cannot go on, as a cancel would.
func (s *Service) stopSend(ctx context.Context, c storage.Campaign) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if errors.Is(err, errSendStopped) {
			return nil
		}
		if err != nil {
			return err
		}
		_, _, err = s.withdrawSend(ctx, tx, cur)
		return err
	})
}

// beginSending moves a scheduled campaign whose time has come to SENDING.
func (s *Service) beginSending(ctx context.Context, p campaignSendPayload) (c storage.Campaign, err error) {
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		if c, err = storage.CampaignByIDAnyProject(ctx, tx, p.CampaignID); err != nil {
			return err
		}
		if c.SendToken != p.Token {
			return errSendStopped
		}
		if c.Status == storage.CampaignScheduled {
			now := s.now()
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

func (s *Service) fanOut(ctx context.Context, job *queue.RunningJob, c storage.Campaign) error {
	out, err := s.campaignOutgoing(ctx, c)
	if err != nil {
		return err
	}
	aud, err := s.campaignAudience(ctx, c)
	if err != nil {
		return err
	}
	aud.SubscribedOnly = out.Marketing
	var cp fanoutCheckpoint
	if len(job.Checkpoint) > 0 {
		if err := json.Unmarshal(job.Checkpoint, &cp); err != nil {
			return queue.Permanent(err)
		}
	}
	if !cp.Started {
		if err := s.countRecipients(ctx, job, c, aud, &cp); err != nil {
			return err
		}
	}
	for {
		s.paceFanout(ctx)
		contacts, err := storage.AudienceBatch(ctx, s.db.Reader(), aud, cp.After, CampaignBatch)
		if err != nil {
			return err
		}
		if len(contacts) == 0 {
			return s.finishFanout(ctx, c)
		}
		emails, err := s.buildCampaignEmails(ctx, out, c, contacts)
		if err != nil {
			return err
		}
		cp.After, cp.Done = contacts[len(contacts)-1].ID, cp.Done+len(emails)
		if err := s.commitBatch(ctx, job, c, emails, cp); err != nil {
			return err
		}
		if len(contacts) < CampaignBatch {
			return s.finishFanout(ctx, c)
		}
	}
}

// countRecipients stores totalRecipients when the fan-out starts.
func (s *Service) countRecipients(ctx context.Context, job *queue.RunningJob, c storage.Campaign, aud audience.Audience, cp *fanoutCheckpoint) error {
	n, err := storage.CountAudience(ctx, s.db.Reader(), aud)
	if err != nil {
		return err
	}
	cp.Started = true
	return s.db.Write(ctx, func(tx *storage.Tx) error {
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

func (s *Service) commitBatch(ctx context.Context, job *queue.RunningJob, c storage.Campaign, emails []storage.Email, cp fanoutCheckpoint) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if err != nil {
			return err
		}
		for _, e := range emails {
			queue := s.queueCampaignEmail
			if e.Status == storage.EmailFailed {
				queue = s.queueFailedEmail
			}
			if err := queue(ctx, tx, e); err != nil {
				return err
			}
		}
		if err := s.jobs.Queued(tx, messaging.JobDeliverCampaign); err != nil {
			return err
		}
		return job.SaveProgress(ctx, tx, min(99, cp.Done*100/max(1, cur.TotalRecipients)), cp)
	})
}

// finishFanout records that every recipient has an email row: the total
// becomes the number of rows, and the campaign is SENT at once if every
// email already reached a final state (or there were none).
func (s *Service) finishFanout(ctx context.Context, c storage.Campaign) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := currentSend(ctx, tx, c)
		if err != nil {
			return err
		}
		n, err := storage.CountCampaignEmails(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		cur.FanoutDone, cur.TotalRecipients, cur.UpdatedAt = true, n.Emails, s.now()
		if err := tx.UpdateCampaign(ctx, cur); err != nil {
			return err
		}
		_, err = tx.FinishCampaign(ctx, c.ID, s.now())
		return err
	})
}

// campaignOutgoing prepares what every message of the campaign shares.
func (s *Service) campaignOutgoing(ctx context.Context, c storage.Campaign) (*messaging.Outgoing, error) {
	project, err := storage.ProjectByID(ctx, s.db.Reader(), c.ProjectID)
	if err != nil {
		return nil, err
	}
	out := &messaging.Outgoing{ProjectID: c.ProjectID, Tracking: project.TrackingEnabled, Subject: c.Subject, Body: c.Body,
		From: message.Address{Email: c.From, Name: messaging.Deref(c.FromName)}, FromDomain: c.FromDomain,
		Marketing: c.Type == messaging.TemplateMarketing}
	if c.ReplyTo != nil {
		out.ReplyTo = &message.Address{Email: *c.ReplyTo}
	}
	out.Signer, err = s.senders.SignerFor(ctx, c.ProjectID, c.FromDomain)
	return out, err
}

// campaignAudience compiles the campaign's audience now. Marketing sends
// then keep only subscribed contacts.

func (s *Service) campaignAudience(ctx context.Context, c storage.Campaign) (audience.Audience, error) {
	q := s.db.Reader()
	switch c.AudienceType {
	case audience.AudienceSegment:
		g, err := storage.SegmentByID(ctx, q, c.ProjectID, messaging.Deref(c.SegmentID))
		if err != nil {
			return audience.Audience{}, err
		}
		return s.audience.SegmentAudience(ctx, q, g)
	case audience.AudienceFiltered:
		cond, err := audience.ParseCondition(c.AudienceCondition, "audienceCondition")
		if err != nil {
			return audience.Audience{}, err
		}
		return s.audience.ConditionAudience(ctx, q, c.ProjectID, cond)
	}
	return audience.Audience{ProjectID: c.ProjectID}, nil
}

// buildCampaignEmails renders, builds and signs one message per contact
// on every core: signing dominates a fan-out's cost.
func (s *Service) buildCampaignEmails(ctx context.Context, out *messaging.Outgoing, c storage.Campaign, contacts []storage.Contact) ([]storage.Email, error) {
	emails := make([]storage.Email, len(contacts))
	errs := make([]error, len(contacts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(contacts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				emails[i], errs[i] = s.fanoutEmail(ctx, out, c, contacts[i])
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

func (s *Service) campaignEmail(ctx context.Context, out *messaging.Outgoing, c storage.Campaign, ct storage.Contact) (storage.Email, error) {
	data, err := jsondata.Decode(ct.Data)
	if err != nil {
		return storage.Email{}, err
	}
	linkID := ct.ID
	if out.Test {
		linkID = tracking.TestSendContact
	}
	vars, err := s.messaging.RenderVarsLinking(ctx, c.ProjectID, ct.ID, linkID, ct.Email, data)
	if err != nil {
		return storage.Email{}, err
	}
	e := storage.Email{ID: ids.New(), ProjectID: c.ProjectID, ContactID: ct.ID, CampaignID: c.ID,
		MessageID: message.NewMessageID(out.FromDomain), Sender: out.From.Email, Recipient: ct.Email,
		Marketing: out.Marketing, Status: storage.EmailPending, CreatedAt: s.now()}
	return e, s.messaging.Compose(ctx, out, message.Address{Email: ct.Email}, &e, vars)
}

// fanoutEmail is campaignEmail for one recipient of a send.
func (s *Service) fanoutEmail(ctx context.Context, out *messaging.Outgoing, c storage.Campaign, ct storage.Contact) (storage.Email, error) {
	e, err := s.campaignEmail(ctx, out, c, ct)
	var invalid *apierr.Error
	if errors.As(err, &invalid) && invalid.Kind == apierr.KindValidation {
		// This contact's data cannot make a message (a render error, a
		// bound, a header the builder refuses): retrying will not change
		// that, and the rest of the audience must not wait on it.
		e.Status, e.LastResponse, e.Raw = storage.EmailFailed, "not sent: "+invalid.Message, nil
		return e, nil
	}
	return e, err
}

// queueFailedEmail records an email whose message could not be made as
// FAILED with its reason, visible in the campaign's stats and the
// contact's events.
func (s *Service) queueFailedEmail(ctx context.Context, tx *storage.Tx, e storage.Email) error {
	reason := e.LastResponse
	e.Status = storage.EmailPending
	if err := tx.InsertEmail(ctx, e); err != nil {
		return err
	}
	if _, err := tx.FailEmail(ctx, e.ID, reason, s.now()); err != nil {
		return err
	}
	return s.messaging.EmitEmailEvent(ctx, tx, e, event.EventFailed, map[string]any{"reason": reason})
}
