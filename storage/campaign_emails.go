package storage

import (
	"context"
	"strings"
	"time"
)

// CampaignCounts are a campaign's numbers, counted from its email rows.
// Sent counts the emails handed to delivery and not withdrawn; delivered
// counts acceptance by the recipient's server or by the relay.
type CampaignCounts struct {
	Emails     int // every row, withdrawn ones included
	Sent       int
	Delivered  int
	Opened     int
	Clicked    int
	Bounced    int
	Complained int
	Failed     int
	Pending    int
	Cancelled  int
}

const campaignCountsSQL = `COUNT(*),
	COUNT(*) FILTER (WHERE status <> 'CANCELLED'),
	COUNT(*) FILTER (WHERE status IN ('DELIVERED', 'SENT')),
	COUNT(*) FILTER (WHERE opened_at IS NOT NULL),
	COUNT(*) FILTER (WHERE clicked_at IS NOT NULL),
	COUNT(*) FILTER (WHERE status = 'BOUNCED'),
	COUNT(*) FILTER (WHERE complained_at IS NOT NULL),
	COUNT(*) FILTER (WHERE status = 'FAILED'),
	COUNT(*) FILTER (WHERE status IN ('PENDING', 'SENDING')),
	COUNT(*) FILTER (WHERE status = 'CANCELLED')`

func scanCounts(s scanner, c *CampaignCounts, lead ...any) error {
	return s.Scan(append(lead, &c.Emails, &c.Sent, &c.Delivered, &c.Opened, &c.Clicked, &c.Bounced,
		&c.Complained, &c.Failed, &c.Pending, &c.Cancelled)...)
}

// CountCampaignEmails counts one campaign's emails by outcome.
func CountCampaignEmails(ctx context.Context, q Querier, campaignID string) (_ CampaignCounts, err error) {
	defer wrap(&err, "CountCampaignEmails")
	var c CampaignCounts
	err = scanCounts(q.QueryRow(ctx, `SELECT `+campaignCountsSQL+` FROM emails WHERE campaign_id = ?`, campaignID), &c)
	return c, err
}

// CountCampaignsEmails counts the emails of several campaigns at once (a
// list page); campaigns without emails are absent from the map.
func CountCampaignsEmails(ctx context.Context, q Querier, ids []string) (_ map[string]CampaignCounts, err error) {
	defer wrap(&err, "CountCampaignsEmails")
	out := map[string]CampaignCounts{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	// The statement varies only with the page size (at most 100 shapes).
	rows, err := q.Query(ctx, `SELECT campaign_id, `+campaignCountsSQL+` FROM emails
		WHERE campaign_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) GROUP BY campaign_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var c CampaignCounts
		if err := scanCounts(rows, &c, &id); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, rows.Err()
}

// CancelCampaignEmails withdraws a campaign's emails that no delivery
// attempt has started; their delivery jobs then find nothing to do.
func (tx *Tx) CancelCampaignEmails(ctx context.Context, campaignID string, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.CancelCampaignEmails")
	n, err := affected(tx.Exec(ctx, `UPDATE emails SET status = 'CANCELLED', due_at = NULL, updated_at = ?
		WHERE campaign_id = ? AND status = 'PENDING'`, Millis(now), campaignID))
	if err != nil || n == 0 {
		return n, err
	}
	_, err = tx.Exec(ctx, `DELETE FROM email_bodies WHERE email_id IN
		(SELECT id FROM emails WHERE campaign_id = ? AND status = 'CANCELLED')`, campaignID)
	return n, err
}

// FinishCampaign marks a SENDING campaign whose fan-out is done SENT once
// none of its emails is waiting for delivery. It reports whether it did.
func (tx *Tx) FinishCampaign(ctx context.Context, campaignID string, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.FinishCampaign")
	n, err := affected(tx.Exec(ctx, `UPDATE campaigns SET status = 'SENT', updated_at = ?1
		WHERE id = ?2 AND status = 'SENDING' AND fanout_done = TRUE
		AND NOT EXISTS (SELECT 1 FROM emails WHERE campaign_id = ?2 AND status IN ('PENDING', 'SENDING'))`,
		Millis(now), campaignID))
	return n > 0, err
}
