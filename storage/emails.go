package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// Email statuses.
const (
	EmailPending   = "PENDING"   // queued for delivery
	EmailSending   = "SENDING"   // a delivery attempt is under way
	EmailSent      = "SENT"      // accepted by the relay; final delivery unknown
	EmailDelivered = "DELIVERED" // accepted by the recipient's server
	EmailBounced   = "BOUNCED"   // refused for good
	EmailFailed    = "FAILED"    // gave up after temporary failures
	EmailCancelled = "CANCELLED" // withdrawn before delivery (campaign cancel)
)

// Email is one message to one recipient.
type Email struct {
	ID           string
	ProjectID    string
	ContactID    string
	CampaignID   string
	TemplateID   string
	WorkflowID   string
	MessageID    string
	Sender       string
	Recipient    string
	Subject      string
	Marketing    bool
	Status       string
	Raw          []byte   // the signed bytes, stored apart (InsertEmail, EmailBody)
	Links        []string // the tracked links' targets; click tokens name them by index
	OpenTracked  bool     // it carries the open pixel; told in email.sent's data, not stored
	Attempts     int
	LastCode     int
	LastEnhanced string
	LastResponse string
	MXHost       string
	SentAt       *time.Time
	DeliveredAt  *time.Time
	BouncedAt    *time.Time
	FailedAt     *time.Time
	OpenedAt     *time.Time
	ClickedAt    *time.Time
	ComplainedAt *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time

	// WorkflowExecutionID and WorkflowStepExecutionID name the SEND_EMAIL
	// step execution that sent it; the latter is its idempotency key.
	WorkflowExecutionID     string
	WorkflowStepExecutionID string

	// SelfQueued makes the inserted row its own delivery queue entry, due
	// at CreatedAt (email_queue.go), instead of a delivery job's email.
	SelfQueued bool

	packed *packedBody // Raw compressed for storage (Pack)
}

const emailColumns = `id, project_id, COALESCE(contact_id, ''), COALESCE(campaign_id, ''), COALESCE(template_id, ''),
	COALESCE(workflow_id, ''), message_id, sender, recipient, subject, marketing, status, attempts,
	COALESCE(last_code, 0), COALESCE(last_enhanced, ''), COALESCE(last_response, ''), COALESCE(mx_host, ''),
	sent_at, delivered_at, bounced_at, failed_at, opened_at, clicked_at, complained_at, created_at, updated_at, links,
	COALESCE(workflow_execution_id, '')`

func scanEmail(s scanner) (Email, error) {
	var e Email
	var sent, delivered, bounced, failed, opened, clicked, complained sql.NullInt64
	var created, updated int64
	var links []byte
	err := s.Scan(&e.ID, &e.ProjectID, &e.ContactID, &e.CampaignID, &e.TemplateID, &e.WorkflowID, &e.MessageID,
		&e.Sender, &e.Recipient, &e.Subject, &e.Marketing, &e.Status, &e.Attempts,
		&e.LastCode, &e.LastEnhanced, &e.LastResponse, &e.MXHost,
		&sent, &delivered, &bounced, &failed, &opened, &clicked, &complained, &created, &updated, &links,
		&e.WorkflowExecutionID)
	if err == nil && links != nil {
		err = json.Unmarshal(links, &e.Links)
	}
	e.SentAt, e.DeliveredAt, e.BouncedAt = optTime(sent), optTime(delivered), optTime(bounced)
	e.FailedAt, e.OpenedAt, e.ClickedAt, e.ComplainedAt = optTime(failed), optTime(opened), optTime(clicked), optTime(complained)
	e.CreatedAt, e.UpdatedAt = FromMillis(created), FromMillis(updated)
	return e, notFound(err)
}

func optTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := FromMillis(v.Int64)
	return &t
}

// InsertEmail stores an email with its tracked links, and its signed bytes
// until it reaches a final state.
func (tx *Tx) InsertEmail(ctx context.Context, e Email) (err error) {
	defer wrap(&err, "Tx.InsertEmail")
	var links any
	if len(e.Links) > 0 {
		b, err := json.Marshal(e.Links)
		if err != nil {
			return err
		}
		links = string(b)
	}
	_, err = tx.Exec(ctx, `INSERT INTO emails (id, project_id, contact_id, campaign_id, template_id, workflow_id,
			message_id, sender, recipient, subject, marketing, status, links, created_at, updated_at,
			workflow_execution_id, workflow_step_execution_id, due_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.ProjectID, nullable(e.ContactID), nullable(e.CampaignID), nullable(e.TemplateID), nullable(e.WorkflowID),
		e.MessageID, e.Sender, e.Recipient, e.Subject, e.Marketing, e.Status, links,
		Millis(e.CreatedAt), Millis(e.CreatedAt), nullable(e.WorkflowExecutionID), nullable(e.WorkflowStepExecutionID),
		dueAt(e))
	if err != nil || e.Raw == nil {
		return err
	}
	if e.packed == nil {
		e.Pack()
	}
	_, err = tx.Exec(ctx, `INSERT INTO email_bodies (email_id, raw, codec) VALUES (?, ?, ?)`, e.ID, e.packed.data, e.packed.codec)
	return err
}

// dueAt is the due_at an email is inserted with: its creation time when it
// is its own queue entry, else none.
func dueAt(e Email) any {
	if !e.SelfQueued || e.Status != EmailPending {
		return nil
	}
	return Millis(e.CreatedAt)
}

// EmailBody returns the signed bytes of an email waiting for delivery;
// ErrNotFound once a final state's body was deleted (a delivered email's
// with a later write: email_bodies_drop.go), so callers check the status.
func EmailBody(ctx context.Context, q Querier, id string) (_ []byte, err error) {
	defer wrap(&err, "EmailBody")
	var data []byte
	var codec int
	if err := q.QueryRow(ctx, `SELECT raw, codec FROM email_bodies WHERE email_id = ?`, id).Scan(&data, &codec); err != nil {
		return nil, notFound(err)
	}
	return unpackBody(data, codec)
}

// EmailByID finds an email, without its bytes.
func EmailByID(ctx context.Context, q Querier, id string) (_ Email, err error) {
	defer wrap(&err, "EmailByID")
	return scanEmail(q.QueryRow(ctx, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, id))
}

// EmailByMessageID finds an email by its Message-ID header value.
func EmailByMessageID(ctx context.Context, q Querier, messageID string) (_ Email, err error) {
	defer wrap(&err, "EmailByMessageID")
	return scanEmail(q.QueryRow(ctx, `SELECT `+emailColumns+` FROM emails WHERE message_id = ?`, messageID))
}

// StartAttempt marks an email SENDING and counts the attempt. It reports
// false when the email is no longer waiting for delivery (delivered by an
// attempt whose acknowledgement was recorded, or cancelled).
func (tx *Tx) StartAttempt(ctx context.Context, id string, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.StartAttempt")
	_, ok, err := tx.StartAttemptRow(ctx, id, now)
	return ok, err
}

// StartAttemptRow is StartAttempt returning the email as it now is (without
// its bytes), so that the attempt need not read it again.
func (tx *Tx) StartAttemptRow(ctx context.Context, id string, now time.Time) (_ Email, _ bool, err error) {
	defer wrap(&err, "Tx.StartAttemptRow")
	e, err := scanEmail(tx.QueryRow(ctx, `UPDATE emails SET status = 'SENDING', attempts = attempts + 1, updated_at = ?
		WHERE id = ? AND status IN ('PENDING', 'SENDING') RETURNING `+emailColumns, Millis(now), id))
	if errors.Is(err, ErrNotFound) {
		return Email{}, false, nil
	}
	return e, err == nil, err
}

const (
	undoAttemptSQL = `UPDATE emails SET status = 'PENDING', attempts = max(attempts - 1, 0), updated_at = ?
		WHERE id = ? AND status = 'SENDING'`
	undoAttemptPG = `UPDATE emails SET status = 'PENDING', attempts = greatest(attempts - 1, 0), updated_at = ?
		WHERE id = ? AND status = 'SENDING'`
)

// UndoAttempt takes back the attempt StartAttempt counted, for an attempt
// that did not happen (see app's relay check): the email waits again.
func (tx *Tx) UndoAttempt(ctx context.Context, id string, now time.Time) (err error) {
	defer wrap(&err, "Tx.UndoAttempt")
	_, err = tx.Exec(ctx, undoAttemptSQL, Millis(now), id)
	return err
}

// AttemptOutcome is what one delivery attempt learned.
type AttemptOutcome struct {
	Status   string // the email's new status
	Code     int
	Enhanced string
	Response string
	MXHost   string
}

// RecordAttempt stores an attempt's outcome. A final status stamps its time,
// takes a self-queued email out of the queue and drops the stored bytes,
// which are no longer needed, with a later write (email_bodies_drop.go). A temporary failure of a self-queued email
// leaves it SENDING under its lease: the dispatcher's retry, a write of its
// own, makes it PENDING at the backoff's time, and should the server die
// between the two, the start-up's lease expiry (which takes SENDING emails
// only) makes it due at once instead of when the lease would have ended.
func (tx *Tx) RecordAttempt(ctx context.Context, id string, o AttemptOutcome, now time.Time) (err error) {
	defer wrap(&err, "Tx.RecordAttempt")
	_, err = tx.Exec(ctx, `UPDATE emails SET status = CASE WHEN ?1 = 'PENDING' AND due_at IS NOT NULL THEN status ELSE ?1 END,
			last_code = ?2, last_enhanced = ?3, last_response = ?4,
			mx_host = ?5, updated_at = ?6,
			sent_at = CASE WHEN ?1 = 'SENT' THEN ?6 ELSE sent_at END,
			delivered_at = CASE WHEN ?1 = 'DELIVERED' THEN ?6 ELSE delivered_at END,
			bounced_at = CASE WHEN ?1 = 'BOUNCED' THEN ?6 ELSE bounced_at END,
			failed_at = CASE WHEN ?1 = 'FAILED' THEN ?6 ELSE failed_at END,
			due_at = CASE WHEN ?1 = 'PENDING' THEN due_at END
		WHERE id = ?7`,
		o.Status, o.Code, nullable(o.Enhanced), nullable(o.Response), nullable(o.MXHost), Millis(now), id)
	if err == nil && o.Status != EmailPending {
		tx.dropBodyLater(id)
	}
	return err
}

// MarkEmail sets one of the engagement or outcome timestamps reported after
// delivery (opened, clicked, complained, and bounced or delivered when a
// notification arrives later). It reports whether this was the first time.
func (tx *Tx) MarkEmail(ctx context.Context, id, column string, now time.Time) (first bool, err error) {
	defer wrap(&err, "Tx.MarkEmail")
	var query string
	switch column {
	case "opened_at":
		query = `UPDATE emails SET opened_at = ?, updated_at = ? WHERE id = ? AND opened_at IS NULL`
	case "clicked_at":
		query = `UPDATE emails SET clicked_at = ?, updated_at = ? WHERE id = ? AND clicked_at IS NULL`
	case "complained_at":
		query = `UPDATE emails SET complained_at = ?, updated_at = ? WHERE id = ? AND complained_at IS NULL`
	default:
		panic("storage: MarkEmail column " + column)
	}
	n, err := affected(tx.Exec(ctx, query, Millis(now), Millis(now), id))
	return n > 0, err
}

// FailEmail marks FAILED, with reason as its last response, an email still
// waiting for delivery, and drops its stored bytes. It reports whether the
// email was waiting: one in a final state is left as it is.
func (tx *Tx) FailEmail(ctx context.Context, id, reason string, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.FailEmail")
	n, err := affected(tx.Exec(ctx, `UPDATE emails SET status = 'FAILED', last_response = ?1, failed_at = ?2, updated_at = ?2,
			due_at = NULL
		WHERE id = ?3 AND status IN ('PENDING', 'SENDING')`, reason, Millis(now), id))
	if err != nil || n == 0 {
		return false, err
	}
	_, err = tx.Exec(ctx, `DELETE FROM email_bodies WHERE email_id = ?`, id)
	return true, err
}

// SetEmailStatus moves an email to a status reported after the fact (a
// bounce notification, a relay's delivery report), with its timestamp.
func (tx *Tx) SetEmailStatus(ctx context.Context, id, status, response string, now time.Time) (err error) {
	defer wrap(&err, "Tx.SetEmailStatus")
	return tx.RecordAttempt(ctx, id, AttemptOutcome{Status: status, Response: response}, now)
}
