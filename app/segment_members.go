package app

import (
	"context"
	"time"

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
	var v Validation
	if len(emails) == 0 || len(emails) > MaxSegmentMemberEmails {
		v.Add("emails", "too_big", "Give between 1 and 1000 emails", len(emails))
		return nil, v.Err()
	}
	seen := map[string]bool{}
	var out []string
	for i, raw := range emails {
		e := checkEmail(&v, fieldPath("emails", i), raw)
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
		return g, BadRequest("Members can only be added to or removed from a STATIC segment; a DYNAMIC segment's members follow its condition")
	}
	return g, nil
}

// AddSegmentMembers adds contacts, by email, to a static segment; with
// CreateMissing, unknown emails become contacts first. A tracked segment
// emits segment.<slug>.entry for each contact that was not a member.
func (a *App) AddSegmentMembers(ctx context.Context, projectID, id string, in MembersInput) (MembersAdded, error) {
	emails, err := checkMemberEmails(in.Emails)
	if err != nil {
		return MembersAdded{}, err
	}
	var res MembersAdded
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		g, err := staticSegment(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		ids, err := a.memberContacts(ctx, tx, projectID, emails, in, &res)
		if err != nil {
			return err
		}
		already, err := storage.SegmentMembersAmong(ctx, tx, id, ids)
		if err != nil {
			return err
		}
		added := minus(ids, already)
		now := a.now()
		if _, err := tx.AddSegmentMembers(ctx, id, added, now); err != nil {
			return err
		}
		res.Added = len(added)
		return a.membersChanged(ctx, tx, g, added, nil, now)
	})
	return res, err
}

// memberContacts finds (or, with CreateMissing, creates) the contacts of
// emails, counting the emails it could not find.
func (a *App) memberContacts(ctx context.Context, tx *storage.Tx, projectID string, emails []string, in MembersInput, res *MembersAdded) ([]string, error) {
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
		change, err := a.upsertContact(ctx, tx, projectID, contactUpsert{email: e, subscribed: in.Subscribed,
			newSubscribed: true, reason: ReasonAPI})
		if err != nil {
			return nil, err
		}
		ids = append(ids, change.contact.ID)
	}
	return ids, nil
}

// RemoveSegmentMembers removes contacts, by email, from a static segment.
// A tracked segment emits segment.<slug>.exit for each removed member.
func (a *App) RemoveSegmentMembers(ctx context.Context, projectID, id string, emails []string) (MembersRemoved, error) {
	emails, err := checkMemberEmails(emails)
	if err != nil {
		return MembersRemoved{}, err
	}
	var res MembersRemoved
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
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
		return a.membersChanged(ctx, tx, g, nil, members, a.now())
	})
	return res, err
}

// membersChanged records a change of a static segment's members: the
// exact count, and entry/exit events when the segment is tracked.
func (a *App) membersChanged(ctx context.Context, tx *storage.Tx, g Segment, entered, left []string, now time.Time) error {
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
	return a.emitMembership(ctx, tx, g, entered, left, now)
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
func (a *App) SegmentContacts(ctx context.Context, projectID, id string, p PageRequest) (NumberedPage[Contact], error) {
	p = p.clamp()
	g, err := a.GetSegment(ctx, projectID, id)
	if err != nil {
		return NumberedPage[Contact]{}, err
	}
	r := a.db.Scanner() // counts and pages read through the map (storage/scan.go)
	aud, err := a.SegmentAudience(ctx, r, g)
	if err != nil {
		return NumberedPage[Contact]{}, err
	}
	total, err := storage.CountAudience(ctx, r, aud)
	if err != nil {
		return NumberedPage[Contact]{}, err
	}
	rows, err := storage.AudiencePage(ctx, r, aud, p.offset(), p.PageSize)
	return numberedPage(rows, p, total), err
}
