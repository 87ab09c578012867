package storage

import (
	"context"
	"time"
)

// MailCounts are a window's emails (CANCELLED aside), permanent bounces
// and complaints.
type MailCounts struct {
	Total      int64
	Bounces    int64
	Complaints int64
}

// ProjectMailCounts counts a project's emails created since since, and
// its permanent bounces and complaints that happened since since (a zero
// since: all time).
func ProjectMailCounts(ctx context.Context, q Querier, projectID string, since time.Time) (MailCounts, error) {
	from := int64(0)
	if !since.IsZero() {
		from = Millis(since)
	}
	var c MailCounts
	err := q.QueryRow(ctx, `SELECT
		coalesce(sum(created_at >= ?2 AND status <> 'CANCELLED'), 0),
		coalesce(sum(bounced_at >= ?2), 0),
		coalesce(sum(complained_at >= ?2), 0)
		FROM emails WHERE project_id = ?1`, projectID, from).Scan(&c.Total, &c.Bounces, &c.Complaints)
	return c, err
}

// CancelProjectEmails withdraws a project's emails that no delivery
// attempt has started; their delivery jobs then find nothing to do.
func (tx *Tx) CancelProjectEmails(ctx context.Context, projectID string, now time.Time) (int64, error) {
	n, err := affected(tx.Exec(ctx, `UPDATE emails SET status = 'CANCELLED', updated_at = ?
		WHERE project_id = ? AND status = 'PENDING'`, Millis(now), projectID))
	if err != nil || n == 0 {
		return n, err
	}
	_, err = tx.Exec(ctx, `DELETE FROM email_bodies WHERE email_id IN
		(SELECT id FROM emails WHERE project_id = ? AND status = 'CANCELLED')`, projectID)
	return n, err
}
