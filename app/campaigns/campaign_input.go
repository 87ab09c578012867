package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/storage"
)

// CampaignInput is the body of POST /campaigns and PUT /campaigns/{id};
// nil fields were not given.
type CampaignInput struct {
	Name, Description, Subject, Body, From, FromName, ReplyTo *string
	Type, AudienceType, SegmentID                             *string
	AudienceCondition                                         json.RawMessage // nil when not given
}

// applyCampaignInput checks the given fields and writes them into c. It
// returns the parsed audience condition of a FILTERED campaign (the
// stored one when none was given), for checkAudience.
func applyCampaignInput(v *apierr.Validation, c *storage.Campaign, in CampaignInput) *audience.Condition {
	applyCampaignContent(v, c, in)
	if in.Type != nil {
		c.Type = messaging.CheckTemplateType(v, "type", *in.Type)
	}
	if in.AudienceType != nil {
		switch c.AudienceType = *in.AudienceType; c.AudienceType {
		case audience.AudienceAll, audience.AudienceSegment, audience.AudienceFiltered:
		default:
			v.Add("audienceType", "invalid_enum_value",
				"Invalid enum value. Expected 'ALL' | 'SEGMENT' | 'FILTERED', received '"+c.AudienceType+"'", c.AudienceType)
		}
	}
	if in.SegmentID != nil {
		c.SegmentID = messaging.OptionalText(v, "segmentId", *in.SegmentID, 64, false)
	}
	if in.AudienceCondition != nil {
		c.AudienceCondition = in.AudienceCondition
		if string(c.AudienceCondition) == "null" {
			c.AudienceCondition = nil
		}
	}
	return campaignAudienceFields(v, c)
}

func applyCampaignContent(v *apierr.Validation, c *storage.Campaign, in CampaignInput) {
	if in.Name != nil {
		c.Name = messaging.RequiredText(v, "name", *in.Name, messaging.MaxTemplateName)
	}
	if in.Description != nil {
		c.Description = messaging.OptionalText(v, "description", *in.Description, messaging.MaxTemplateDescription, false)
	}
	if in.Subject != nil {
		c.Subject = *in.Subject
		messaging.CheckSubject(v, c.Subject)
	}
	if in.Body != nil {
		if c.Body = *in.Body; strings.TrimSpace(c.Body) == "" {
			v.Add("body", "too_small", "Must not be empty", c.Body)
		}
	}
	if in.From != nil {
		c.From, c.FromDomain = messaging.CheckSenderAddress(v, "from", *in.From)
	}
	if in.FromName != nil {
		c.FromName = messaging.OptionalText(v, "fromName", *in.FromName, messaging.MaxFromName, true)
	}
	if in.ReplyTo != nil {
		c.ReplyTo = messaging.OptionalEmail(v, "replyTo", *in.ReplyTo)
	}
}

// campaignAudienceFields keeps only the audience fields the audience type
// uses, so that a campaign never holds a stale segment or condition, and
// requires the one it needs.
func campaignAudienceFields(v *apierr.Validation, c *storage.Campaign) *audience.Condition {
	switch c.AudienceType {
	case audience.AudienceAll:
		c.SegmentID, c.AudienceCondition = nil, nil
	case audience.AudienceSegment:
		c.AudienceCondition = nil
		if c.SegmentID == nil {
			v.Add("segmentId", "invalid_type", "Required when audienceType is SEGMENT", "undefined")
		}
	case audience.AudienceFiltered:
		c.SegmentID = nil
		if !audience.IsConditionObject(c.AudienceCondition) {
			v.Add("audienceCondition", "invalid_type", "A condition object is required when audienceType is FILTERED", "undefined")
			return nil
		}
		cond, err := audience.ParseCondition(c.AudienceCondition, "audienceCondition")
		if e, ok := apierr.AsError(err); ok {
			v.Fields = append(v.Fields, e.Fields...)
			return nil
		}
		c.AudienceCondition = audience.EncodeCondition(cond)
		return cond
	}
	return nil
}

// checkAudience checks the references of an audience inside the write
// that saves it: the segment must exist, and so must every segment the
// condition names.
func (s *Service) checkAudience(ctx context.Context, tx *storage.Tx, c storage.Campaign, cond *audience.Condition) error {
	switch {
	case c.AudienceType == audience.AudienceSegment && c.SegmentID != nil:
		_, err := storage.SegmentByID(ctx, tx, c.ProjectID, *c.SegmentID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.Invalid(apierr.FieldError{Field: "segmentId", Code: "segment_not_found",
				Message: "No segment " + *c.SegmentID + " in this project", Received: *c.SegmentID})
		}
		return err
	case c.AudienceType == audience.AudienceFiltered && cond != nil:
		return s.audience.CheckCondition(ctx, tx, c.ProjectID, cond, "audienceCondition", "")
	}
	return nil
}

// checkCampaignText reports template syntax errors in the subject and
// body when the campaign is saved rather than when it sends.
func (s *Service) checkCampaignText(ctx context.Context, v *apierr.Validation, c storage.Campaign) {
	s.messaging.CheckTemplateText(ctx, v, "subject", c.Subject, render.Header)
	s.messaging.CheckTemplateText(ctx, v, "body", c.Body, render.HTML)
}
