package audience

import (
	"context"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/storage"
)

// Segment is a named audience of a project.
type Segment = storage.Segment

// Segment limits of the spec.
const (
	MaxSegmentName        = 100
	MaxSegmentDescription = 500
)

// SegmentInput is the body of POST /segments and PATCH /segments/{id};
// nil fields were not given.
type SegmentInput struct {
	Name            *string
	Description     *string
	Type            *string
	Condition       json.RawMessage // nil when not given
	TrackMembership *bool
}

func segmentErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("SEGMENT_NOT_FOUND", "Segment not found")
	}
	return err
}

// ListSegments returns a project's segments, newest first.
func (a *Service) ListSegments(ctx context.Context, projectID string) ([]Segment, error) {
	s, err := storage.ListSegments(ctx, a.db.Reader(), projectID)
	if s == nil {
		s = []Segment{}
	}
	return s, err
}

// GetSegment returns a segment with its cached member count.
func (s *Service) GetSegment(ctx context.Context, projectID, id string) (Segment, error) {
	g, err := storage.SegmentByID(ctx, s.db.Reader(), projectID, id)
	return g, segmentErr(err)
}

// CreateSegment saves a segment. A DYNAMIC segment needs a condition
// object; a STATIC one ignores any condition given. A dynamic segment is
// counted before it is saved, so that its first memberCount is real.
func (s *Service) CreateSegment(ctx context.Context, projectID string, in SegmentInput) (Segment, error) {
	var v apierr.Validation
	if in.Name == nil {
		v.Add("name", "invalid_type", "Required", "undefined")
	}
	checkSegmentText(&v, in)
	typ := storage.SegmentDynamic
	if in.Type != nil {
		typ = *in.Type
		if typ != storage.SegmentDynamic && typ != storage.SegmentStatic {
			v.Add("type", "invalid_enum_value", "Expected 'DYNAMIC' or 'STATIC'", typ)
		}
	}
	if err := v.Err(); err != nil {
		return Segment{}, err
	}
	now := s.now()
	g := Segment{ID: ids.New(), ProjectID: projectID, Name: *in.Name, Type: typ,
		TrackMembership: in.TrackMembership != nil && *in.TrackMembership, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		g.Description = *in.Description
	}
	var cond *Condition
	if typ == storage.SegmentDynamic {
		var err error
		if cond, g.MemberCount, err = s.prepareCondition(ctx, projectID, in.Condition); err != nil {
			return Segment{}, err
		}
		g.Condition = EncodeCondition(cond)
	}
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		if cond != nil {
			if err := s.CheckCondition(ctx, tx, projectID, cond, "condition", g.ID); err != nil {
				return err
			}
		}
		if err := tx.InsertSegment(ctx, g); err != nil {
			return err
		}
		return tx.SetSegmentCount(ctx, g.ID, g.MemberCount, now)
	})
	return g, err
}

// prepareCondition parses a dynamic segment's condition and counts the
// contacts it selects now.
func (s *Service) prepareCondition(ctx context.Context, projectID string, raw json.RawMessage) (*Condition, int, error) {
	if !IsConditionObject(raw) {
		return nil, 0, apierr.PlainBadRequest("A DYNAMIC segment requires a condition object")
	}
	cond, err := ParseCondition(raw, "condition")
	if err != nil {
		return nil, 0, err
	}
	aud, err := s.ConditionAudience(ctx, s.db.Reader(), projectID, cond)
	if err != nil {
		return nil, 0, err
	}
	n, err := storage.CountAudience(ctx, s.db.Scanner(), aud)
	return cond, n, err
}

// checkSegmentText checks the name and description limits.
func checkSegmentText(v *apierr.Validation, in SegmentInput) {
	if in.Name != nil {
		switch n := utf8.RuneCountInString(*in.Name); {
		case n == 0:
			v.Add("name", "too_small", "Name must not be empty", *in.Name)
		case n > MaxSegmentName:
			v.Add("name", "too_big", "Name must be at most 100 characters", n)
		}
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > MaxSegmentDescription {
		v.Add("description", "too_big", "Description must be at most 500 characters", utf8.RuneCountInString(*in.Description))
	}
}

// UpdateSegment changes a segment's name, description, condition (DYNAMIC
// only; a STATIC segment ignores one) or trackMembership. Turning tracking
// off forgets the tracked membership, so turning it on again starts anew.
func (s *Service) UpdateSegment(ctx context.Context, projectID, id string, in SegmentInput) (Segment, error) {
	var v apierr.Validation
	checkSegmentText(&v, in)
	if err := v.Err(); err != nil {
		return Segment{}, err
	}
	g, err := s.GetSegment(ctx, projectID, id)
	if err != nil {
		return g, err
	}
	if in.Type != nil && *in.Type != g.Type {
		return g, apierr.BadRequest("A segment's type cannot be changed; create a new segment instead")
	}
	var cond *Condition
	count := g.MemberCount
	if in.Condition != nil && g.Type == storage.SegmentDynamic {
		// The bare {error} 400 is POST /segments's alone (the spec's);
		// an update answers in the envelope like every other endpoint.
		if !IsConditionObject(in.Condition) {
			return g, apierr.Invalid(apierr.FieldError{Field: "condition", Code: "invalid_type",
				Message: "Expected a condition object", Received: jsondata.Kind(in.Condition)})
		}
		if cond, count, err = s.prepareCondition(ctx, projectID, in.Condition); err != nil {
			return g, err
		}
	}
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		g, err = s.updateSegment(ctx, tx, projectID, id, in, cond)
		if err != nil || cond == nil {
			return err
		}
		g.MemberCount = count
		return tx.SetSegmentCount(ctx, id, count, g.UpdatedAt)
	})
	return g, err
}

func (s *Service) updateSegment(ctx context.Context, tx *storage.Tx, projectID, id string, in SegmentInput, cond *Condition) (Segment, error) {
	g, err := storage.SegmentByID(ctx, tx, projectID, id)
	if err != nil {
		return g, segmentErr(err)
	}
	if in.Name != nil {
		g.Name = *in.Name
	}
	if in.Description != nil {
		g.Description = *in.Description
	}
	if cond != nil {
		if err := s.CheckCondition(ctx, tx, projectID, cond, "condition", id); err != nil {
			return g, err
		}
		g.Condition = EncodeCondition(cond)
	}
	if in.TrackMembership != nil {
		if g.TrackMembership && !*in.TrackMembership && g.Type == storage.SegmentDynamic {
			if err := tx.ClearSegmentMembers(ctx, id); err != nil {
				return g, err
			}
		}
		g.TrackMembership = *in.TrackMembership
	}
	g.UpdatedAt = s.now()
	return g, tx.UpdateSegment(ctx, g)
}

// DeleteSegment deletes a segment and its member rows. A segment that a
// scheduled or sending campaign targets cannot be deleted (409). Other
// segments that refer to it then select nobody through that filter.
func (s *Service) DeleteSegment(ctx context.Context, projectID, id string) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.SegmentByID(ctx, tx, projectID, id); err != nil {
			return segmentErr(err)
		}
		inUse, err := s.segmentInUse(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if inUse {
			return apierr.Conflict("The segment is the audience of a scheduled or sending campaign")
		}
		_, err = tx.DeleteSegment(ctx, projectID, id)
		return err
	})
}

// segmentInUse reports whether a SCHEDULED or SENDING campaign targets the
// segment: its segmentId is id, or its audienceCondition names it.
func (s *Service) segmentInUse(ctx context.Context, tx *storage.Tx, projectID, id string) (bool, error) {
	return campaignsUseSegment(ctx, tx, projectID, id)
}

// campaignsUseSegment reports whether a SCHEDULED or SENDING campaign of the
// project targets the segment: segmentInUse's campaign check.
func campaignsUseSegment(ctx context.Context, q storage.Querier, projectID, segmentID string) (bool, error) {
	n, err := storage.CampaignsUsingSegment(ctx, q, projectID, segmentID)
	return n > 0, err
}
