package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// An email can be its own delivery queue entry (a campaign's are): its
// due_at is when it is due while PENDING, and when the lease of its attempt
// runs out while SENDING; NULL once it has left the queue. One UPDATE …
// RETURNING claims it, marking it SENDING and counting the attempt, so
// emails.attempts is also the queue's attempt count. Every update below is
// guarded by that count, as a job's are, so a worker whose lease ran out
// and whose email was claimed again cannot write over the new attempt.
// A final status (RecordAttempt, FailEmail, a cancel) takes the email out
// of the queue in the statement that sets it.

// QueuedEmail is a claimed email: its row (without its bytes) and when its
// lease runs out.
type QueuedEmail struct {
	Email
	LeaseUntil time.Time
}

// The claims, by rowid on SQLite (the queue's index holds it) and by id
// on PostgreSQL, which has no rowid.
const (
	claimQueuedEmailsSQL = `UPDATE emails SET status = 'SENDING', attempts = attempts + 1, due_at = ?2, updated_at = ?1
		WHERE rowid IN (SELECT rowid FROM emails WHERE due_at <= ?1 AND status IN ('PENDING', 'SENDING') LIMIT ?3)
		RETURNING ` + emailColumns + `, due_at`
	claimQueuedEmailsPG = `UPDATE emails SET status = 'SENDING', attempts = attempts + 1, due_at = ?2, updated_at = ?1
		WHERE id IN (SELECT id FROM emails WHERE due_at <= ?1 AND status IN ('PENDING', 'SENDING') LIMIT ?3)
		RETURNING ` + emailColumns + `, due_at`
	claimQueuedEmailSQL = `UPDATE emails SET status = 'SENDING', attempts = attempts + 1, due_at = ?2, updated_at = ?1
		WHERE rowid = (SELECT rowid FROM emails WHERE due_at <= ?1 AND status IN ('PENDING', 'SENDING') LIMIT 1)
		RETURNING ` + emailColumns + `, due_at`
	claimQueuedEmailPG = `UPDATE emails SET status = 'SENDING', attempts = attempts + 1, due_at = ?2, updated_at = ?1
		WHERE id = (SELECT id FROM emails WHERE due_at <= ?1 AND status IN ('PENDING', 'SENDING') LIMIT 1)
		RETURNING ` + emailColumns + `, due_at`
)

// ClaimQueuedEmails leases up to limit queued emails that are due: PENDING
// ones whose time has come and SENDING ones whose lease ran out because
// their worker died. Each claim counts an attempt; an email whose worker
// died during its last attempt comes back past its maximum, and the
// dispatcher gives it up instead of sending it. The due emails are found
// by rowid, which the queue's index holds: the index alone answers, with
// no lookup of the table by id.
func (tx *Tx) ClaimQueuedEmails(ctx context.Context, now, leaseUntil time.Time, limit int) (_ []QueuedEmail, err error) {
	defer wrap(&err, "Tx.ClaimQueuedEmails")
	rows, err := tx.Query(ctx, claimQueuedEmailsSQL, Millis(now), Millis(leaseUntil), limit)
	return collect(rows, err, scanQueuedEmail)
}

// ClaimQueuedEmail is ClaimQueuedEmails for one email, the claim a finishing
// delivery makes for its slot: a lookup by id instead of a set.
func (tx *Tx) ClaimQueuedEmail(ctx context.Context, now, leaseUntil time.Time) (_ []QueuedEmail, err error) {
	defer wrap(&err, "Tx.ClaimQueuedEmail")
	rows, err := tx.Query(ctx, claimQueuedEmailSQL, Millis(now), Millis(leaseUntil))
	return collect(rows, err, scanQueuedEmail)
}

func scanQueuedEmail(s scanner) (QueuedEmail, error) {
	var q QueuedEmail
	var sent, delivered, bounced, failed, opened, clicked, complained sql.NullInt64
	var created, updated, lease int64
	var links []byte
	e := &q.Email
	err := s.Scan(&e.ID, &e.ProjectID, &e.ContactID, &e.CampaignID, &e.TemplateID, &e.WorkflowID, &e.MessageID,
		&e.Sender, &e.Recipient, &e.Subject, &e.Marketing, &e.Status, &e.Attempts,
		&e.LastCode, &e.LastEnhanced, &e.LastResponse, &e.MXHost,
		&sent, &delivered, &bounced, &failed, &opened, &clicked, &complained, &created, &updated, &links,
		&e.WorkflowExecutionID, &lease)
	if err == nil && links != nil {
		err = json.Unmarshal(links, &e.Links)
	}
	e.SentAt, e.DeliveredAt, e.BouncedAt = optTime(sent), optTime(delivered), optTime(bounced)
	e.FailedAt, e.OpenedAt, e.ClickedAt, e.ComplainedAt = optTime(failed), optTime(opened), optTime(clicked), optTime(complained)
	e.CreatedAt, e.UpdatedAt, q.LeaseUntil = FromMillis(created), FromMillis(updated), FromMillis(lease)
	return q, err
}

// ExtendQueuedEmail renews the lease of an email's attempt. It reports
// false when the email is no longer leased to this attempt.
func (tx *Tx) ExtendQueuedEmail(ctx context.Context, id string, attempt int, leaseUntil, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.ExtendQueuedEmail")
	n, err := affected(tx.Exec(ctx, `UPDATE emails SET due_at = ?1, updated_at = ?2
		WHERE id = ?3 AND attempts = ?4 AND status = 'SENDING' AND due_at IS NOT NULL`,
		Millis(leaseUntil), Millis(now), id, attempt))
	return n > 0, err
}

// RequeueEmail puts an attempt's email back in the queue, PENDING and due
// at runAt; uncounted takes the attempt back (one that shutdown cut short,
// or that could not run). An email in a final state stays as it is.
func (tx *Tx) RequeueEmail(ctx context.Context, id string, attempt int, runAt time.Time, uncounted bool, now time.Time) (err error) {
	defer wrap(&err, "Tx.RequeueEmail")
	undo := 0
	if uncounted {
		undo = 1
	}
	_, err = tx.Exec(ctx, `UPDATE emails SET status = 'PENDING', due_at = ?1, attempts = attempts - ?2, updated_at = ?3
		WHERE id = ?4 AND attempts = ?5 AND status IN ('PENDING', 'SENDING') AND due_at IS NOT NULL`,
		Millis(runAt), undo, Millis(now), id, attempt)
	return err
}

// UnqueueEmail takes an email out of the queue, whatever its status.
func (tx *Tx) UnqueueEmail(ctx context.Context, id string) (err error) {
	defer wrap(&err, "Tx.UnqueueEmail")
	_, err = tx.Exec(ctx, `UPDATE emails SET due_at = NULL WHERE id = ? AND due_at IS NOT NULL`, id)
	return err
}

// ResumeQueuedEmails makes the PENDING emails due after now and no later
// than until due now.
func (tx *Tx) ResumeQueuedEmails(ctx context.Context, now, until time.Time) (err error) {
	defer wrap(&err, "Tx.ResumeQueuedEmails")
	_, err = tx.Exec(ctx, `UPDATE emails SET due_at = ?1, updated_at = ?1
		WHERE due_at > ?1 AND due_at <= ?2 AND status = 'PENDING'`, Millis(now), Millis(until))
	return err
}

// ExpireEmailLeases ends the lease of every queued email marked SENDING,
// so that the next claim takes it: again, or given up if that was its last
// attempt. Only a server starting up calls it (see ExpireJobLeases).
func (tx *Tx) ExpireEmailLeases(ctx context.Context, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.ExpireEmailLeases")
	return affected(tx.Exec(ctx, `UPDATE emails SET due_at = ?1, updated_at = ?1
		WHERE due_at > ?1 AND status = 'SENDING'`, Millis(now)))
}

// NextQueuedEmailTime is when, after the given time, the earliest queued
// email falls due or lease runs out.
func NextQueuedEmailTime(ctx context.Context, q Querier, after time.Time) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "NextQueuedEmailTime")
	var next sql.NullInt64
	err = q.QueryRow(ctx, `SELECT MIN(due_at) FROM emails WHERE due_at > ?`, Millis(after)).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(next.Int64), true, nil
}

// NextQueuedEmailRun is when the earliest PENDING queued email is due.
func NextQueuedEmailRun(ctx context.Context, q Querier) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "NextQueuedEmailRun")
	var next sql.NullInt64
	err = q.QueryRow(ctx, `SELECT MIN(due_at) FROM emails WHERE due_at IS NOT NULL AND status = 'PENDING'`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(next.Int64), true, nil
}

// QueuedEmailCounts counts the queued emails waiting (PENDING) and being
// attempted (SENDING), from the queue's index alone.
func QueuedEmailCounts(ctx context.Context, q Querier) (pending, sending int, err error) {
	defer wrap(&err, "QueuedEmailCounts")
	err = q.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE status = 'PENDING'), COUNT(*) FILTER (WHERE status = 'SENDING')
		FROM emails WHERE due_at IS NOT NULL`).Scan(&pending, &sending)
	return pending, sending, err
}

// OldestQueuedEmail is when the oldest queued email was created.
func OldestQueuedEmail(ctx context.Context, q Querier) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "OldestQueuedEmail")
	var ms sql.NullInt64
	err = q.QueryRow(ctx, `SELECT MIN(created_at) FROM emails WHERE due_at IS NOT NULL`).Scan(&ms)
	if err != nil || !ms.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(ms.Int64), true, nil
}
