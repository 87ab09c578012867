package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

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
func applyCampaignInput(v *Validation, c *storage.Campaign, in CampaignInput) *Condition {
	applyCampaignContent(v, c, in)
	if in.Type != nil {
		c.Type = checkTemplateType(v, "type", *in.Type)
	}
	if in.AudienceType != nil {
		switch c.AudienceType = *in.AudienceType; c.AudienceType {
		case AudienceAll, AudienceSegment, AudienceFiltered:
		default:
			v.Add("audienceType", "invalid_enum_value",
				"Invalid enum value. Expected 'ALL' | 'SEGMENT' | 'FILTERED', received '"+c.AudienceType+"'", c.AudienceType)
		}
	}
	if in.SegmentID != nil {
		c.SegmentID = optionalText(v, "segmentId", *in.SegmentID, 64, false)
	}
	if in.AudienceCondition != nil {
		c.AudienceCondition = in.AudienceCondition
		if string(c.AudienceCondition) == "null" {
			c.AudienceCondition = nil
		}
	}
	return campaignAudienceFields(v, c)
}

func applyCampaignContent(v *Validation, c *storage.Campaign, in CampaignInput) {
	if in.Name != nil {
		c.Name = requiredText(v, "name", *in.Name, MaxTemplateName)
	}
	if in.Description != nil {
		c.Description = optionalText(v, "description", *in.Description, MaxTemplateDescription, false)
	}
	if in.Subject != nil {
		c.Subject = *in.Subject
		checkSubject(v, c.Subject)
	}
	if in.Body != nil {
		if c.Body = *in.Body; strings.TrimSpace(c.Body) == "" {
			v.Add("body", "too_small", "Must not be empty", c.Body)
		}
	}
	if in.From != nil {
		c.From, c.FromDomain = checkSenderAddress(v, "from", *in.From)
	}
	if in.FromName != nil {
		c.FromName = optionalText(v, "fromName", *in.FromName, MaxFromName, true)
	}
	if in.ReplyTo != nil {
		c.ReplyTo = optionalEmail(v, "replyTo", *in.ReplyTo)
	}
}

// campaignAudienceFields keeps only the audience fields the audience type
// uses, so that a campaign never holds a stale segment or condition, and
// requires the one it needs.
func campaignAudienceFields(v *Validation, c *storage.Campaign) *Condition {
	switch c.AudienceType {
	case AudienceAll:
		c.SegmentID, c.AudienceCondition = nil, nil
	case AudienceSegment:
		c.AudienceCondition = nil
		if c.SegmentID == nil {
			v.Add("segmentId", "invalid_type", "Required when audienceType is SEGMENT", "undefined")
		}
	case AudienceFiltered:
		c.SegmentID = nil
		if !IsConditionObject(c.AudienceCondition) {
			v.Add("audienceCondition", "invalid_type", "A condition object is required when audienceType is FILTERED", "undefined")
			return nil
		}
		cond, err := ParseCondition(c.AudienceCondition, "audienceCondition")
		if e, ok := AsError(err); ok {
			v.Fields = append(v.Fields, e.Fields...)
			return nil
		}
		c.AudienceCondition = encodeCondition(cond)
		return cond
	}
	return nil
}

// checkAudience checks the references of an audience inside the write
// that saves it: the segment must exist, and so must every segment the
// condition names.
func (a *App) checkAudience(ctx context.Context, tx *storage.Tx, c storage.Campaign, cond *Condition) error {
	switch {
	case c.AudienceType == AudienceSegment && c.SegmentID != nil:
		_, err := storage.SegmentByID(ctx, tx, c.ProjectID, *c.SegmentID)
		if errors.Is(err, storage.ErrNotFound) {
			return Invalid(FieldError{Field: "segmentId", Code: "segment_not_found",
				Message: "No segment " + *c.SegmentID + " in this project", Received: *c.SegmentID})
		}
		return err
	case c.AudienceType == AudienceFiltered && cond != nil:
		return a.CheckCondition(ctx, tx, c.ProjectID, cond, "audienceCondition", "")
	}
	return nil
}

// checkCampaignText reports template syntax errors in the subject and
// body when the campaign is saved rather than when it sends.
func (a *App) checkCampaignText(ctx context.Context, v *Validation, c storage.Campaign) {
	a.checkTemplateText(ctx, v, "subject", c.Subject, render.Header)
	a.checkTemplateText(ctx, v, "body", c.Body, render.HTML)
}
