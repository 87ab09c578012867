package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
)

// Mailer hands a signed message to the network: *smtpout.Sender.
type Mailer interface {
	Send(ctx context.Context, m smtpout.Message) []smtpout.Result
}

// DeliveryOptions tune the delivery queue.
type DeliveryOptions struct {
	Workers   int           // deliveries in flight at once; default 16
	RetryBase time.Duration // first retry delay, doubling after; default 5m
	GiveUp    time.Duration // how long temporary failures are retried; default 48h
	Relay     bool          // a smarthost takes every message: acceptance is SENT, not DELIVERED
}

func (o DeliveryOptions) WithDefaults() DeliveryOptions {
	if o.Workers <= 0 {
		o.Workers = 16
	}
	if o.RetryBase <= 0 {
		o.RetryBase = 5 * time.Minute
	}
	if o.GiveUp <= 0 {
		o.GiveUp = 48 * time.Hour
	}
	return o
}

type deliveryPayload struct {
	EmailID string `json:"emailId"`
}

// deliveryRetry retries a delivery with delays doubling from RetryBase up
// to a sixth of the give-up time. The give-up time ends temporary SMTP
// failures (see outcome, which marks the email FAILED); the attempt limit,
// one past the attempts that fit in that time, ends any other failure.
func DeliveryRetry(o DeliveryOptions) queue.Retry {
	backoff := queue.ExponentialBackoff(o.RetryBase, max(o.GiveUp/6, o.RetryBase))
	attempt, waited := 1, time.Duration(0)
	for waited < o.GiveUp {
		waited += backoff(attempt)
		attempt++
	}
	return queue.Retry{MaxAttempts: attempt + 1, Backoff: backoff}
}

// giveUpDelivery is the delivery kind's terminal outcome, in the write
// that fails its job: an email still waiting is FAILED with the cause as
// its reason, and its campaign may be done.
func (s *Service) GiveUpDelivery(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) (err error) {
	var p deliveryPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil // it names no email
	}
	return s.giveUpEmail(ctx, tx, p.EmailID, cause)
}

// giveUpCampaignDelivery is giveUpDelivery for a campaign's email, which is
// its own job.
func (s *Service) GiveUpCampaignDelivery(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) (err error) {
	return s.giveUpEmail(ctx, tx, job.ID, cause)
}

func (s *Service) giveUpEmail(ctx context.Context, tx *storage.Tx, id string, cause error) error {
	reason, _, _ := strings.Cut(cause.Error(), "\n") // a panic's stack stays in the job and the log
	failed, err := tx.FailEmail(ctx, id, "gave up: "+reason, s.now())
	if err != nil || !failed {
		return err
	}
	e, err := storage.EmailByID(ctx, tx, id)
	if err != nil {
		return err
	}
	// Counted as failed like a delivery given up by time (outcome); its
	// last attempt, if one ran, was counted as deferred.
	tx.OnCommit(func() { s.countDelivery(e, storage.EmailFailed) })
	if err := s.EmitEmailEvent(ctx, tx, e, event.EventFailed, map[string]any{"reason": "gave up: " + reason}); err != nil {
		return err
	}
	return s.campaignEmailSettled(ctx, tx, e, storage.EmailFailed)
}

// errNoBytes fails a delivery whose message is gone: retrying cannot help.
var errNoBytes = errors.New("the message's bytes are missing")

// errTryLater makes the dispatcher retry a delivery after its backoff.
var errTryLater = errors.New("temporary delivery failure")

// startDelivery marks the email SENDING and counts the attempt, in the
// write that claims its job. An email no longer waiting for delivery
// (delivered by an attempt whose acknowledgement was recorded, or
// cancelled) ends its job there.
func (s *Service) StartDelivery(ctx context.Context, tx *storage.Tx, job storage.Job) (_ bool, err error) {
	var p deliveryPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return true, nil // Run fails it for good
	}
	e, ok, err := tx.StartAttemptRow(ctx, p.EmailID, s.now())
	if ok {
		tx.OnCommit(func() { s.handoff.PutClaimed(e) })
	}
	return ok, err
}

// runDelivery makes one attempt; startDelivery marked the email SENDING
// first, so a crash mid-attempt leaves it to be tried again when the lease
// runs out: it is sent twice only if the remote server accepted it and the
// acknowledgement was lost, which no mail system can rule out.
func (s *Service) RunDelivery(ctx context.Context, job *queue.RunningJob) (_ any, err error) {
	var p deliveryPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	return s.deliver(ctx, job, p.EmailID, false)
}

// runCampaignDelivery is runDelivery for a campaign's email, which is its
// own job: the claim marked it SENDING.
func (s *Service) RunCampaignDelivery(ctx context.Context, job *queue.RunningJob) (_ any, err error) {
	return s.deliver(ctx, job, job.ID, true)
}

// deliver makes one attempt of an email. selfQueued: the email is its own
// queue entry, whose postponement takes back the attempt itself.
func (s *Service) deliver(ctx context.Context, job *queue.RunningJob, id string, selfQueued bool) (any, error) {
	e, err := s.emailToDeliver(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil // the project or email was deleted
	}
	if err != nil || e.Raw == nil {
		return nil, err // no bytes: nothing left to send
	}
	if err := s.relayGate(ctx, e, selfQueued); err != nil {
		return nil, err
	}
	res := s.mailer.Send(ctx, smtpout.Message{From: s.returnPath(ctx, e), To: []string{e.Recipient}, Data: e.Raw})
	if len(res) != 1 {
		return nil, fmt.Errorf("mailer returned %d results for one recipient", len(res))
	}
	if err := s.relayVerdict(ctx, e, res[0], selfQueued); err != nil {
		return nil, err
	}
	outcome := s.outcome(e, res[0])
	if err := s.recordOutcome(ctx, job, e, outcome); err != nil {
		return nil, err
	}
	s.countDelivery(e, outcome.Status)
	s.log.Info("delivery attempt", "email_id", e.ID, "job_id", job.ID, "status", outcome.Status,
		"code", outcome.Code, "enhanced", outcome.Enhanced, "mx", outcome.MXHost, "reply", outcome.Response)
	if outcome.Status == storage.EmailPending {
		return nil, fmt.Errorf("%w: %s", errTryLater, outcome.Response)
	}
	return nil, nil
}

// emailToDeliver reads the email of an attempt with its bytes: the row
// from the handoff when this process claimed the attempt, the bytes from
// it when this is the first attempt of a message queued by this process,
// else from storage. An email in a final state comes without
// them: there is nothing left to send.
func (s *Service) emailToDeliver(ctx context.Context, id string) (storage.Email, error) {
	raw, handed := s.handoff.Take(id)
	e, claimed := s.handoff.takeClaimed(id)
	var err error
	if !claimed {
		e, err = storage.EmailByID(ctx, s.db.Reader(), id)
	}
	if err != nil || (e.Status != storage.EmailPending && e.Status != storage.EmailSending) {
		return e, err
	}
	if !handed {
		raw, err = storage.EmailBody(ctx, s.db.Reader(), id)
		if errors.Is(err, storage.ErrNotFound) {
			return e, queue.Permanent(errNoBytes)
		}
	}
	e.Raw = raw
	return e, err
}

// outcome turns an SMTP result into the email's next status.
func (s *Service) outcome(e storage.Email, r smtpout.Result) storage.AttemptOutcome {
	o := storage.AttemptOutcome{Code: r.Code, Enhanced: r.EnhancedCode, Response: r.Message, MXHost: r.MXHost}
	switch {
	case r.Delivered && s.delivery.Relay:
		o.Status = storage.EmailSent
	case r.Delivered:
		o.Status = storage.EmailDelivered
	case !r.Temporary:
		o.Status = storage.EmailBounced
	case s.now().Sub(e.CreatedAt) >= s.delivery.GiveUp:
		o.Status = storage.EmailFailed
		o.Response = "gave up after " + s.delivery.GiveUp.String() + ": " + r.Message
	default:
		o.Status = storage.EmailPending
	}
	return o
}

// recordOutcome stores the attempt and emits the contact's events in one
// write: email.delivery on acceptance, email.bounce on a permanent
// failure, which also unsubscribes the contact.
func (s *Service) recordOutcome(ctx context.Context, job *queue.RunningJob, e storage.Email, o storage.AttemptOutcome) error {
	ctx = context.WithoutCancel(ctx) // the attempt happened; record it even during shutdown
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		now := s.now()
		if err := tx.RecordAttempt(ctx, e.ID, o, now); err != nil {
			return err
		}
		if o.Status != storage.EmailPending {
			// A final outcome ends the job in the same write.
			if err := job.FinishIn(ctx, tx); err != nil {
				return err
			}
		}
		if err := s.campaignEmailSettled(ctx, tx, e, o.Status); err != nil {
			return err
		}
		switch o.Status {
		case storage.EmailDelivered:
			return s.EmitEmailEvent(ctx, tx, e, event.EventDelivery, nil)
		case storage.EmailBounced:
			return s.bounce(ctx, tx, e, bounceData(BounceSourceSMTP, o.Code, o.Enhanced, o.Response), now)
		case storage.EmailFailed:
			return s.EmitEmailEvent(ctx, tx, e, event.EventFailed, map[string]any{"reason": o.Response})
		}
		return nil
	})
}

// bounce records email.bounce and unsubscribes the contact.
func (s *Service) bounce(ctx context.Context, tx *storage.Tx, e storage.Email, extra map[string]any, now time.Time) error {
	if err := s.EmitEmailEvent(ctx, tx, e, event.EventBounce, extra); err != nil {
		return err
	}
	return s.unsubscribeFor(ctx, tx, e.ProjectID, e.ContactID, event.ReasonBounce, now)
}

// unsubscribeFor unsubscribes a contact with a reason, emitting the event
// only if the contact was subscribed.
func (s *Service) unsubscribeFor(ctx context.Context, tx *storage.Tx, projectID, contactID, reason string, now time.Time) error {
	if contactID == "" {
		return nil
	}
	c, err := storage.ContactByID(ctx, tx, projectID, contactID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && !c.Subscribed {
		return nil
	}
	if err != nil {
		return err
	}
	c.Subscribed, c.UpdatedAt = false, now
	if err := tx.UpdateContact(ctx, c); err != nil {
		return err
	}
	return s.audience.EmitSubscription(ctx, tx, c, reason, now)
}

// emitEmailEvent records an email.* event on the email's contact. Its data
// lets an integrator correlate it with the send response.
func (s *Service) EmitEmailEvent(ctx context.Context, tx *storage.Tx, e storage.Email, name string, extra map[string]any) (err error) {
	defer apierr.Wrap(&err, "messaging.EmitEmailEvent")
	if e.ContactID == "" {
		return nil
	}
	data := map[string]any{"emailId": e.ID, "messageId": e.MessageID, "subject": e.Subject, "from": e.Sender,
		"source": storage.EmailSource(e)}
	for k, v := range map[string]string{"campaignId": e.CampaignID, "templateId": e.TemplateID, "workflowId": e.WorkflowID,
		"workflowExecutionId": e.WorkflowExecutionID} {
		if v != "" {
			data[k] = v
		}
	}
	for k, v := range extra {
		data[k] = v
	}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return s.events.InsertEvent(ctx, tx, storage.Event{ID: ids.New(), ProjectID: e.ProjectID, ContactID: e.ContactID,
		Name: name, Data: b, CreatedAt: s.now()})
}

// returnPath is the envelope sender. With an inbound host configured it is
// a VERP address, bounce+<token>@bounce.<sender domain>, so a bounce that
// arrives later names its email; otherwise it is the From address.
func (s *Service) returnPath(ctx context.Context, e storage.Email) string {
	if s.inboundHost == "" {
		return e.Sender
	}
	tok, err := s.tracking.VerpToken(ctx, e.ID)
	if err != nil {
		return e.Sender
	}
	_, domain, _ := strings.Cut(e.Sender, "@")
	return "bounce+" + tok + "@bounce." + domain
}

// countDelivery counts an attempt's outcome in the metrics.
func (s *Service) countDelivery(e storage.Email, status string) {
	outcome := metrics.Deferred
	switch status {
	case storage.EmailDelivered, storage.EmailSent:
		outcome = metrics.Delivered
	case storage.EmailBounced:
		outcome = metrics.Bounced
	case storage.EmailFailed:
		outcome = metrics.Failed
	}
	_, domain, _ := strings.Cut(e.Recipient, "@")
	s.metrics.Delivery(outcome, domain)
}

// JobDeliver is one attempt to hand an email to its MX (a job per email). A kind's name is stored in
// its jobs' rows: never rename one.
const JobDeliver = "email.deliver"

// JobDeliverCampaign is a campaign email's delivery: the email is its own
// queue entry, with no job row (campaigns/campaign_queue.go). A kind's name is stored in
// its jobs' rows: never rename one.
const JobDeliverCampaign = "email.deliver.campaign"
