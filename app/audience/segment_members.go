package audience

import (
	"context"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// MaxSegmentMemberEmails is the most emails one members request takes.
const MaxSegmentMemberEmails = 1000

// MembersInput is the body of POST /segments/{id}/members. Subscribed is
// the subscription state of contacts that CreateMissing creates (default
// true, as for POST /contacts); existing contacts keep theirs.
type MembersInput struct {
	Emails        []string
	CreateMissing bool
	Subscribed    *bool
}

// MembersAdded is the response of POST /segments/{id}/members.
type MembersAdded struct {
	Added    int `json:"added"`
	NotFound int `json:"notFound"`
}

// MembersRemoved is the response of DELETE /segments/{id}/members.
type MembersRemoved struct {
	Removed int `json:"removed"`
}

// checkMemberEmails validates and normalises a members request's emails,
// dropping repeats.
func checkMemberEmails(emails []string) ([]string, error) {
	var v apierr.Validation
	if len(emails) == 0 || len(emails) > MaxSegmentMemberEmails {
		v.Add("emails", "too_big", "Give between 1 and 1000 emails", len(emails))
		return nil, v.Err()
	}
	seen := map[string]bool{}
	var out []string
	for i, raw := range emails {
		e := verify.CheckEmail(&v, apierr.FieldPath("emails", i), raw)
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, v.Err()
}

// staticSegment loads a segment for a members change: STATIC only, since
// a DYNAMIC segment's members follow its condition.
func staticSegment(ctx context.Context, tx *storage.Tx, projectID, id string) (Segment, error) {
	g, err := storage.SegmentByID(ctx, tx, projectID, id)
	if err != nil {
		return g, segmentErr(err)
	}
	if g.Type != storage.SegmentStatic {
		return g, apierr.BadRequest("Members can only be added to or removed from a STATIC segment; a DYNAMIC segment's members follow its condition")
	}
	return g, nil
}

// AddSegmentMembers adds contacts, by email, to a static segment; with
// CreateMissing, unknown emails become contacts first. A tracked segment
// emits segment.<slug>.entry for each contact that was not a member.
func (s *Service) AddSegmentMembers(ctx context.Context, projectID, id string, in MembersInput) (MembersAdded, error) {
	emails, err := checkMemberEmails(in.Emails)
	if err != nil {
		return MembersAdded{}, err
	}
	var res MembersAdded
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		g, err := staticSegment(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		ids, err := s.memberContacts(ctx, tx, projectID, emails, in, &res)
		if err != nil {
			return err
		}
		already, err := storage.SegmentMembersAmong(ctx, tx, id, ids)
		if err != nil {
			return err
		}
		added := minus(ids, already)
		now := s.now()
		if _, err := tx.AddSegmentMembers(ctx, id, added, now); err != nil {
			return err
		}
		res.Added = len(added)
		return s.membersChanged(ctx, tx, g, added, nil, now)
	})
	return res, err
}

// memberContacts finds (or, with CreateMissing, creates) the contacts of
// emails, counting the emails it could not find.
func (s *Service) memberContacts(ctx context.Context, tx *storage.Tx, projectID string, emails []string, in MembersInput, res *MembersAdded) ([]string, error) {
	byEmail, err := storage.ContactIDsByEmail(ctx, tx, projectID, emails)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(emails))
	for _, e := range emails {
		if id, ok := byEmail[e]; ok {
			ids = append(ids, id)
			continue
		}
		if !in.CreateMissing {
			res.NotFound++
			continue
		}
		change, err := s.UpsertInTx(ctx, tx, projectID, ContactUpsert{Email: e, Subscribed: in.Subscribed,
			NewSubscribed: true, Reason: event.ReasonAPI})
		if err != nil {
			return nil, err
		}
		ids = append(ids, change.Contact.ID)
	}
	return ids, nil
}

// RemoveSegmentMembers removes contacts, by email, from a static segment.
// A tracked segment emits segment.<slug>.exit for each removed member.
func (s *Service) RemoveSegmentMembers(ctx context.Context, projectID, id string, emails []string) (MembersRemoved, error) {
	emails, err := checkMemberEmails(emails)
	if err != nil {
		return MembersRemoved{}, err
	}
	var res MembersRemoved
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		g, err := staticSegment(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		byEmail, err := storage.ContactIDsByEmail(ctx, tx, projectID, emails)
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(byEmail))
		for _, cid := range byEmail {
			ids = append(ids, cid)
		}
		members, err := storage.SegmentMembersAmong(ctx, tx, id, ids)
		if err != nil {
			return err
		}
		if _, err := tx.RemoveSegmentMembers(ctx, id, members); err != nil {
			return err
		}
		res.Removed = len(members)
		return s.membersChanged(ctx, tx, g, nil, members, s.now())
	})
	return res, err
}

// membersChanged records a change of a static segment's members: the
// exact count, and entry/exit events when the segment is tracked.
func (s *Service) membersChanged(ctx context.Context, tx *storage.Tx, g Segment, entered, left []string, now time.Time) error {
	n, err := storage.CountSegmentMembers(ctx, tx, g.ID)
	if err != nil {
		return err
	}
	if err := tx.SetSegmentCount(ctx, g.ID, n, now); err != nil {
		return err
	}
	if !g.TrackMembership {
		return nil
	}
	return s.emitMembership(ctx, tx, g, entered, left, now)
}

// minus returns the ids of all that are not in some.
func minus(all, some []string) []string {
	skip := make(map[string]bool, len(some))
	for _, s := range some {
		skip[s] = true
	}
	out := make([]string, 0, len(all))
	for _, s := range all {
		if !skip[s] {
			out = append(out, s)
			skip[s] = true
		}
	}
	return out
}

// SegmentContacts lists a segment's contacts, newest first: the member
// rows of a static segment, the condition evaluated now for a dynamic one.
func (s *Service) SegmentContacts(ctx context.Context, projectID, id string, p paging.PageRequest) (paging.NumberedPage[Contact], error) {
	p = p.Clamp()
	g, err := s.GetSegment(ctx, projectID, id)
	if err != nil {
		return paging.NumberedPage[Contact]{}, err
	}
	r := s.db.Scanner() // counts and pages read through the map (storage/scan.go)
	aud, err := s.SegmentAudience(ctx, r, g)
	if err != nil {
		return paging.NumberedPage[Contact]{}, err
	}
	total, err := storage.CountAudience(ctx, r, aud)
	if err != nil {
		return paging.NumberedPage[Contact]{}, err
	}
	rows, err := storage.AudiencePage(ctx, r, aud, p.Offset(), p.PageSize)
	return paging.Numbered(rows, p, total), err
}
