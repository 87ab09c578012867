package audience

import (
	"context"
	"encoding/json"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// AudienceCountInput is the body of POST /audience/count: an audience as a
// campaign states it (ALL, SEGMENT with segmentId, FILTERED with condition),
// counted before anything is saved. The dashboard's condition builder and
// campaign composer show it as the live count.
type AudienceCountInput struct {
	AudienceType string          `json:"audienceType"`
	SegmentID    string          `json:"segmentId"`
	Condition    json.RawMessage `json:"condition"`
}

// AudienceCount is how many contacts an audience selects now, and how many
// of them are subscribed (those a marketing campaign reaches).
type AudienceCount struct {
	Count      int `json:"count"`
	Subscribed int `json:"subscribed"`
}

// CountAudience counts an unsaved audience with the same queries a send
// and a segment count use. A missing audienceType is FILTERED when a
// condition is given, else ALL.
func (s *Service) CountAudience(ctx context.Context, projectID string, in AudienceCountInput) (AudienceCount, error) {
	q := s.db.Scanner() // counts read through the map (storage/scan.go)
	typ := in.AudienceType
	if typ == "" {
		typ = AudienceAll
		if IsConditionObject(in.Condition) {
			typ = AudienceFiltered
		}
	}
	var aud Audience
	switch typ {
	case AudienceAll:
		aud = Audience{ProjectID: projectID}
	case AudienceSegment:
		g, err := storage.SegmentByID(ctx, q, projectID, in.SegmentID)
		if err != nil {
			return AudienceCount{}, segmentErr(err)
		}
		if aud, err = s.SegmentAudience(ctx, q, g); err != nil {
			return AudienceCount{}, err
		}
	case AudienceFiltered:
		var v apierr.Validation
		if !IsConditionObject(in.Condition) {
			v.Add("condition", "invalid_type", "A FILTERED audience needs a condition object", nil)
			return AudienceCount{}, v.Err()
		}
		cond, err := ParseCondition(in.Condition, "condition")
		if err != nil {
			return AudienceCount{}, err
		}
		if err := s.CheckCondition(ctx, q, projectID, cond, "condition", ""); err != nil {
			return AudienceCount{}, err
		}
		if aud, err = s.ConditionAudience(ctx, q, projectID, cond); err != nil {
			return AudienceCount{}, err
		}
	default:
		var v apierr.Validation
		v.Add("audienceType", "invalid_enum_value", "audienceType must be ALL, SEGMENT or FILTERED", typ)
		return AudienceCount{}, v.Err()
	}
	var out AudienceCount
	var err error
	if out.Count, err = storage.CountAudience(ctx, q, aud); err != nil {
		return out, err
	}
	aud.SubscribedOnly = true
	out.Subscribed, err = storage.CountAudience(ctx, q, aud)
	return out, err
}
