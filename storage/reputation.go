package storage

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// MailCounts are a window's emails (CANCELLED aside), permanent bounces
// and complaints.
type MailCounts struct {
	Total      int64
	Bounces    int64
	Complaints int64
}

// ProjectMailCounts counts, for each instant of since (the zero time:
// all time), a project's emails created since then, and its permanent
// bounces and complaints that happened since then; one pass over the
// project's emails serves every window.
func ProjectMailCounts(ctx context.Context, q Querier, projectID string, since ...time.Time) (_ []MailCounts, err error) {
	defer wrap(&err, "ProjectMailCounts")
	var cols []string
	args := []any{projectID}
	for _, t := range since {
		from := int64(0)
		if !t.IsZero() {
			from = Millis(t)
		}
		args = append(args, from)
		n := "?" + strconv.Itoa(len(args))
		cols = append(cols, "coalesce(sum(created_at >= "+n+" AND status <> 'CANCELLED'), 0)",
			"coalesce(sum(bounced_at >= "+n+"), 0)", "coalesce(sum(complained_at >= "+n+"), 0)")
	}
	out := make([]MailCounts, len(since))
	dest := make([]any, 0, 3*len(since))
	for i := range out {
		dest = append(dest, &out[i].Total, &out[i].Bounces, &out[i].Complaints)
	}
	err = q.QueryRow(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM emails WHERE project_id = ?1`, args...).Scan(dest...)
	return out, err
}

// CancelProjectEmails withdraws a project's emails that no delivery
// attempt has started; their delivery jobs then find nothing to do.
func (tx *Tx) CancelProjectEmails(ctx context.Context, projectID string, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.CancelProjectEmails")
	n, err := affected(tx.Exec(ctx, `UPDATE emails SET status = 'CANCELLED', due_at = NULL, updated_at = ?
		WHERE project_id = ? AND status = 'PENDING'`, Millis(now), projectID))
	if err != nil || n == 0 {
		return n, err
	}
	_, err = tx.Exec(ctx, `DELETE FROM email_bodies WHERE email_id IN
		(SELECT id FROM emails WHERE project_id = ? AND status = 'CANCELLED')`, projectID)
	return n, err
}
