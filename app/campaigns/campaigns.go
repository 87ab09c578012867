package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
)

// Campaign is a campaign as the API shows it; the counts come from its
// email rows at read time.
type Campaign struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	Description       *string         `json:"description"`
	Subject           string          `json:"subject"`
	Body              string          `json:"body"`
	From              string          `json:"from"`
	FromName          *string         `json:"fromName"`
	ReplyTo           *string         `json:"replyTo"`
	Type              string          `json:"type"`
	Status            string          `json:"status"`
	AudienceType      string          `json:"audienceType"`
	SegmentID         *string         `json:"segmentId"`
	AudienceCondition json.RawMessage `json:"audienceCondition"`
	ScheduledFor      *time.Time      `json:"scheduledFor"`
	SentAt            *time.Time      `json:"sentAt"`
	TotalRecipients   int             `json:"totalRecipients"`
	SentCount         int             `json:"sentCount"`
	DeliveredCount    int             `json:"deliveredCount"`
	OpenedCount       int             `json:"openedCount"`
	ClickedCount      int             `json:"clickedCount"`
	BouncedCount      int             `json:"bouncedCount"`
	ProjectID         string          `json:"projectId"`
	CreatedAt         time.Time       `json:"createdAt"`
	UpdatedAt         time.Time       `json:"updatedAt"`
}

func campaignView(c storage.Campaign, n storage.CampaignCounts) Campaign {
	cond := c.AudienceCondition
	if cond == nil {
		cond = json.RawMessage("null")
	}
	return Campaign{ID: c.ID, Name: c.Name, Description: c.Description, Subject: c.Subject, Body: c.Body,
		From: c.From, FromName: c.FromName, ReplyTo: c.ReplyTo, Type: c.Type, Status: c.Status,
		AudienceType: c.AudienceType, SegmentID: c.SegmentID, AudienceCondition: cond,
		ScheduledFor: c.ScheduledFor, SentAt: c.SentAt, TotalRecipients: c.TotalRecipients,
		SentCount: n.Sent, DeliveredCount: n.Delivered, OpenedCount: n.Opened, ClickedCount: n.Clicked,
		BouncedCount: n.Bounced, ProjectID: c.ProjectID, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func campaignErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("CAMPAIGN_NOT_FOUND", "Campaign not found")
	}
	return err
}

// GetCampaign returns a campaign with its counts.
func (s *Service) GetCampaign(ctx context.Context, projectID, id string) (Campaign, error) {
	c, err := storage.CampaignByID(ctx, s.db.Reader(), projectID, id)
	if err != nil {
		return Campaign{}, campaignErr(err)
	}
	return s.viewCampaign(ctx, c)
}

func (s *Service) viewCampaign(ctx context.Context, c storage.Campaign) (Campaign, error) {
	n, err := storage.CountCampaignEmails(ctx, s.db.Reader(), c.ID)
	return campaignView(c, n), err
}

// CreateCampaign saves a new DRAFT campaign. The sender domain must be
// verified (403) and the audience must be valid (422).
func (s *Service) CreateCampaign(ctx context.Context, projectID string, in CampaignInput) (Campaign, error) {
	now := s.now()
	c := storage.Campaign{ID: ids.New(), ProjectID: projectID, Type: messaging.TemplateMarketing, Status: storage.CampaignDraft,
		AudienceType: audience.AudienceAll, CreatedAt: now, UpdatedAt: now}
	var v apierr.Validation
	for _, f := range []struct {
		name string
		val  *string
	}{{"name", in.Name}, {"subject", in.Subject}, {"body", in.Body}, {"from", in.From}} {
		if f.val == nil {
			v.Add(f.name, "invalid_type", "Required", "undefined")
		}
	}
	cond := applyCampaignInput(&v, &c, in)
	s.checkCampaignText(ctx, &v, c)
	if err := v.Err(); err != nil {
		return Campaign{}, err
	}
	if err := s.senders.CheckSender(ctx, projectID, c.From); err != nil {
		return Campaign{}, err
	}
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		if err := s.checkAudience(ctx, tx, c, cond); err != nil {
			return err
		}
		return tx.InsertCampaign(ctx, c)
	})
	if err != nil {
		return Campaign{}, err
	}
	return campaignView(c, storage.CampaignCounts{}), nil
}

// UpdateCampaign changes the fields given. Only a DRAFT or SCHEDULED
// campaign can change; a scheduled one sends what it holds when its time
// comes.
func (s *Service) UpdateCampaign(ctx context.Context, projectID, id string, in CampaignInput) (Campaign, error) {
	var out storage.Campaign
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		c, err := storage.CampaignByID(ctx, tx, projectID, id)
		if err != nil {
			return campaignErr(err)
		}
		if c.Status != storage.CampaignDraft && c.Status != storage.CampaignScheduled {
			return apierr.Conflict("A %s campaign cannot be changed; only DRAFT and SCHEDULED ones can", c.Status)
		}
		var v apierr.Validation
		cond := applyCampaignInput(&v, &c, in)
		s.checkCampaignText(ctx, &v, c)
		if err := v.Err(); err != nil {
			return err
		}
		if in.From != nil {
			if err := s.senders.CheckSender(ctx, projectID, c.From); err != nil {
				return err
			}
		}
		if err := s.checkAudience(ctx, tx, c, cond); err != nil {
			return err
		}
		c.UpdatedAt = s.now()
		out = c
		return tx.UpdateCampaign(ctx, c)
	})
	if err != nil {
		return Campaign{}, err
	}
	return s.viewCampaign(ctx, out)
}

// DeleteCampaign deletes a campaign unless it is SCHEDULED or SENDING (409).
func (s *Service) DeleteCampaign(ctx context.Context, projectID, id string) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		c, err := storage.CampaignByID(ctx, tx, projectID, id)
		if err != nil {
			return campaignErr(err)
		}
		if c.Status == storage.CampaignScheduled || c.Status == storage.CampaignSending {
			return apierr.Conflict("The campaign is %s; cancel it before deleting it", c.Status)
		}
		_, err = tx.DeleteCampaign(ctx, projectID, id)
		return err
	})
}

// DuplicateCampaign copies a campaign's content and audience into a new
// DRAFT.
func (s *Service) DuplicateCampaign(ctx context.Context, projectID, id string) (Campaign, error) {
	var dup storage.Campaign
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		c, err := storage.CampaignByID(ctx, tx, projectID, id)
		if err != nil {
			return campaignErr(err)
		}
		now := s.now()
		dup = c
		dup.ID, dup.Name, dup.Status = ids.New(), messaging.CopyName(c.Name), storage.CampaignDraft
		dup.ScheduledFor, dup.SentAt, dup.TotalRecipients, dup.SendToken, dup.FanoutDone = nil, nil, 0, "", false
		dup.CreatedAt, dup.UpdatedAt = now, now
		return tx.InsertCampaign(ctx, dup)
	})
	if err != nil {
		return Campaign{}, err
	}
	return campaignView(dup, storage.CampaignCounts{}), nil
}
