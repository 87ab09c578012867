package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

type campaignSendPayload struct {
	CampaignID string `json:"campaignId"`
	Token      string `json:"token"` // the campaign's send_token when the send was asked for
}

// CampaignSendResult is the data of POST /campaigns/{id}/send.
type CampaignSendResult struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Status       string     `json:"status"`
	ScheduledFor *time.Time `json:"scheduledFor"`
}

// SendCampaign sends a DRAFT (or reschedules a SCHEDULED) campaign: now
// when scheduledFor is null or absent, otherwise at that time. The send is
// a queue job committed with the status change, so it survives a restart.
func (a *App) SendCampaign(ctx context.Context, projectID, id string, scheduledFor json.RawMessage) (CampaignSendResult, string, error) {
	when, err := a.scheduledFor(scheduledFor)
	if err != nil {
		return CampaignSendResult{}, "", err
	}
	var c storage.Campaign
	err = a.withinCampaignLimit(ctx, projectID, id, func() error {
		return a.db.Write(ctx, func(tx *storage.Tx) (err error) {
			c, err = a.startSend(ctx, tx, projectID, id, when)
			return err
		})
	})
	if err != nil {
		return CampaignSendResult{}, "", err
	}
	msg := "Campaign is being sent"
	if when != nil {
		msg = "Campaign scheduled for " + when.Format(time.RFC3339)
	}
	return CampaignSendResult{ID: c.ID, Name: c.Name, Status: c.Status, ScheduledFor: c.ScheduledFor}, msg, nil
}

func (a *App) startSend(ctx context.Context, tx *storage.Tx, projectID, id string, when *time.Time) (storage.Campaign, error) {
	c, err := storage.CampaignByID(ctx, tx, projectID, id)
	if err != nil {
		return c, campaignErr(err)
	}
	if c.Status != storage.CampaignDraft && c.Status != storage.CampaignScheduled {
		return c, Conflict("A %s campaign cannot be sent; only DRAFT and SCHEDULED ones can", c.Status)
	}
	if err := a.CheckSender(ctx, projectID, c.From); err != nil {
		return c, err
	}
	if err := a.recheckAudience(ctx, tx, c); err != nil {
		return c, err
	}
	now := a.now()
	c.SendToken, c.UpdatedAt, c.ScheduledFor, c.FanoutDone, c.TotalRecipients = newID(), now, when, false, 0
	spec := queue.JobSpec{Kind: JobCampaignSend, ProjectID: projectID,
		Payload: campaignSendPayload{CampaignID: c.ID, Token: c.SendToken}}
	if when != nil {
		c.Status, spec.RunAt = storage.CampaignScheduled, *when
	} else {
		c.Status, c.SentAt = storage.CampaignSending, &now
	}
	if err := tx.UpdateCampaign(ctx, c); err != nil {
		return c, err
	}
	_, err = a.jobs.Enqueue(ctx, tx, spec)
	return c, err
}

// recheckAudience checks a saved audience again before a send: its
// segment may have been deleted since.
func (a *App) recheckAudience(ctx context.Context, tx *storage.Tx, c storage.Campaign) error {
	var cond *Condition
	if c.AudienceType == AudienceFiltered {
		var err error
		if cond, err = ParseCondition(c.AudienceCondition, "audienceCondition"); err != nil {
			return err
		}
	}
	return a.checkAudience(ctx, tx, c, cond)
}

// CancelCampaign stops a SCHEDULED or SENDING campaign: the fan-out stops
// at its next batch and emails not yet attempted are withdrawn. With no
// email created yet the campaign is a DRAFT again; otherwise it stays
// CANCELLED.
func (a *App) CancelCampaign(ctx context.Context, projectID, id string) (Campaign, error) {
	var c storage.Campaign
	var counts storage.CampaignCounts
	err := a.db.Write(ctx, func(tx *storage.Tx) (err error) {
		if c, err = storage.CampaignByID(ctx, tx, projectID, id); err != nil {
			return campaignErr(err)
		}
		if c.Status != storage.CampaignScheduled && c.Status != storage.CampaignSending {
			return Conflict("A %s campaign cannot be cancelled; only SCHEDULED and SENDING ones can", c.Status)
		}
		c, counts, err = a.withdrawSend(ctx, tx, c)
		return err
	})
	if err != nil {
		return Campaign{}, err
	}
	return campaignView(c, counts), nil
}

// withdrawSend ends a campaign's send: the emails not yet handed to
// delivery are withdrawn, and the campaign becomes CANCELLED, or DRAFT
// again if none had been.
func (a *App) withdrawSend(ctx context.Context, tx *storage.Tx, c storage.Campaign) (storage.Campaign, storage.CampaignCounts, error) {
	now := a.now()
	if _, err := tx.CancelCampaignEmails(ctx, c.ID, now); err != nil {
		return c, storage.CampaignCounts{}, err
	}
	counts, err := storage.CountCampaignEmails(ctx, tx, c.ID)
	if err != nil {
		return c, counts, err
	}
	c.Status, c.SendToken, c.UpdatedAt = storage.CampaignCancelled, "", now
	if counts.Emails == 0 {
		c.Status, c.ScheduledFor, c.SentAt, c.TotalRecipients = storage.CampaignDraft, nil, nil, 0
	}
	return c, counts, tx.UpdateCampaign(ctx, c)
}

// campaignEmailSettled is the delivery path's hook: when a campaign's
// email reaches a final state, the campaign becomes SENT if it was the
// last one waiting.
func (a *App) campaignEmailSettled(ctx context.Context, tx *storage.Tx, e storage.Email, status string) error {
	if e.CampaignID == "" || status == storage.EmailPending {
		return nil
	}
	_, err := tx.FinishCampaign(ctx, e.CampaignID, a.now())
	return err
}
