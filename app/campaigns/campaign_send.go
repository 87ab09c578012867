package campaigns

import (
	"context"
	"encoding/json"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/messaging"
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
func (s *Service) SendCampaign(ctx context.Context, projectID, id string, scheduledFor json.RawMessage) (CampaignSendResult, string, error) {
	when, err := s.scheduledFor(scheduledFor)
	if err != nil {
		return CampaignSendResult{}, "", err
	}
	var c storage.Campaign
	err = s.withinCampaignLimit(ctx, projectID, id, func() error {
		return s.db.Write(ctx, func(tx *storage.Tx) (err error) {
			c, err = s.startSend(ctx, tx, projectID, id, when)
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

func (s *Service) startSend(ctx context.Context, tx *storage.Tx, projectID, id string, when *time.Time) (storage.Campaign, error) {
	c, err := storage.CampaignByID(ctx, tx, projectID, id)
	if err != nil {
		return c, campaignErr(err)
	}
	if c.Status != storage.CampaignDraft && c.Status != storage.CampaignScheduled {
		return c, apierr.Conflict("A %s campaign cannot be sent; only DRAFT and SCHEDULED ones can", c.Status)
	}
	if err := s.senders.CheckSender(ctx, projectID, c.From); err != nil {
		return c, err
	}
	if err := s.recheckAudience(ctx, tx, c); err != nil {
		return c, err
	}
	now := s.now()
	c.SendToken, c.UpdatedAt, c.ScheduledFor, c.FanoutDone, c.TotalRecipients = ids.New(), now, when, false, 0
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
	_, err = s.jobs.Enqueue(ctx, tx, spec)
	return c, err
}

// recheckAudience checks a saved audience again before a send: its
// segment may have been deleted since.
func (s *Service) recheckAudience(ctx context.Context, tx *storage.Tx, c storage.Campaign) error {
	var cond *audience.Condition
	if c.AudienceType == audience.AudienceFiltered {
		var err error
		if cond, err = audience.ParseCondition(c.AudienceCondition, "audienceCondition"); err != nil {
			return err
		}
	}
	return s.checkAudience(ctx, tx, c, cond)
}

// CancelCampaign stops a SCHEDULED or SENDING campaign: the fan-out stops
// at its next batch and emails not yet attempted are withdrawn. With no
// email created yet the campaign is a DRAFT again; otherwise it stays
// CANCELLED.
func (s *Service) CancelCampaign(ctx context.Context, projectID, id string) (Campaign, error) {
	var c storage.Campaign
	var counts storage.CampaignCounts
	err := s.db.Write(ctx, func(tx *storage.Tx) (err error) {
		if c, err = storage.CampaignByID(ctx, tx, projectID, id); err != nil {
			return campaignErr(err)
		}
		if c.Status != storage.CampaignScheduled && c.Status != storage.CampaignSending {
			return apierr.Conflict("A %s campaign cannot be cancelled; only SCHEDULED and SENDING ones can", c.Status)
		}
		c, counts, err = s.withdrawSend(ctx, tx, c)
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
func (s *Service) withdrawSend(ctx context.Context, tx *storage.Tx, c storage.Campaign) (storage.Campaign, storage.CampaignCounts, error) {
	now := s.now()
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
func (s *Service) CampaignEmailSettled(ctx context.Context, tx *storage.Tx, e storage.Email, status string) error {
	if e.CampaignID == "" || status == storage.EmailPending {
		return nil
	}
	_, err := tx.FinishCampaign(ctx, e.CampaignID, s.now())
	return err
}

// withinCampaignLimit runs start, which sends or schedules a campaign,
// only if its audience fits the project's campaigns cap: over it, 403
// BILLING_LIMIT_EXCEEDED and the campaign stays as it is.
func (s *Service) withinCampaignLimit(ctx context.Context, projectID, id string, start func() error) error {
	l, err := storage.ProjectLimits(ctx, s.db.Reader(), projectID)
	if err != nil || l.Campaigns == nil {
		return start()
	}
	c, err := storage.CampaignByID(ctx, s.db.Reader(), projectID, id)
	if err != nil {
		return start() // start reports it
	}
	aud, err := s.campaignAudience(ctx, c)
	if err != nil {
		return start()
	}
	aud.SubscribedOnly = c.Type == messaging.TemplateMarketing
	n, err := storage.CountAudience(ctx, s.db.Reader(), aud)
	if err != nil {
		return err
	}
	return s.accounts.WithinBillingLimit(ctx, projectID, accounts.UsageCampaigns, n, apierr.KindForbidden, start)
}

// JobCampaignSend is a campaign's fan-out. A kind's name is stored in
// its jobs' rows: never rename one.
const JobCampaignSend = "campaign.send"
