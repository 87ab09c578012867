package storage

import (
	"context"
	"time"
)

// ContactIDsByEmail maps those of emails that are contacts of the project
// to their ids.
func ContactIDsByEmail(ctx context.Context, q Querier, projectID string, emails []string) (_ map[string]string, err error) {
	defer wrap(&err, "ContactIDsByEmail")
	rows, err := q.Query(ctx, `SELECT email, id FROM contacts
		WHERE project_id = ? AND email IN (SELECT value FROM json_each(?))`, projectID, jsonArray(emails))
	type pair struct{ email, id string }
	pairs, err := collect(rows, err, func(s scanner) (pair, error) {
		var p pair
		return p, s.Scan(&p.email, &p.id)
	})
	ids := make(map[string]string, len(pairs))
	for _, p := range pairs {
		ids[p.email] = p.id
	}
	return ids, err
}

const (
	addSegmentMembersSQL = `INSERT OR IGNORE INTO segment_members (segment_id, contact_id, created_at)
		SELECT ?, value, ? FROM json_each(?)`
	addSegmentMembersPG = `INSERT INTO segment_members (segment_id, contact_id, created_at)
		SELECT ?::text, c, ?::bigint FROM json_array_elements_text(?::json) AS c ON CONFLICT DO NOTHING`
)

// AddSegmentMembers adds contacts to a segment's member rows and returns
// how many were not members yet.
func (tx *Tx) AddSegmentMembers(ctx context.Context, segmentID string, contactIDs []string, now time.Time) (_ int, err error) {
	defer wrap(&err, "Tx.AddSegmentMembers")
	n, err := affected(tx.Exec(ctx, addSegmentMembersSQL, segmentID, Millis(now), jsonArray(contactIDs)))
	return int(n), err
}

// RemoveSegmentMembers removes contacts from a segment's member rows and
// returns how many were members.
func (tx *Tx) RemoveSegmentMembers(ctx context.Context, segmentID string, contactIDs []string) (_ int, err error) {
	defer wrap(&err, "Tx.RemoveSegmentMembers")
	n, err := affected(tx.Exec(ctx, `DELETE FROM segment_members
		WHERE segment_id = ? AND contact_id IN (SELECT value FROM json_each(?))`, segmentID, jsonArray(contactIDs)))
	return int(n), err
}

// ClearSegmentMembers removes every member row of a segment.
func (tx *Tx) ClearSegmentMembers(ctx context.Context, segmentID string) (err error) {
	defer wrap(&err, "Tx.ClearSegmentMembers")
	_, err = tx.Exec(ctx, `DELETE FROM segment_members WHERE segment_id = ?`, segmentID)
	return err
}

// CountSegmentMembers counts a segment's member rows.
func CountSegmentMembers(ctx context.Context, q Querier, segmentID string) (_ int, err error) {
	defer wrap(&err, "CountSegmentMembers")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM segment_members WHERE segment_id = ?`, segmentID).Scan(&n)
	return n, err
}

// MembershipDiff compares a segment's member rows with an audience: the
// contacts of the audience without a row (entered), and the rows whose
// contact is no longer in the audience (left).
func MembershipDiff(ctx context.Context, q Querier, a Audience, segmentID string) (entered, left []string, err error) {
	defer wrap(&err, "MembershipDiff")
	set, args := a.setSQL("", "", true, engineOf(q) != nil)
	rows, err := queryAdhoc(ctx, q, `SELECT cid FROM (`+set+`) AS s
		EXCEPT SELECT contact_id FROM segment_members WHERE segment_id = ?`, append(args, segmentID)...)
	if entered, err = collect(rows, err, scanString); err != nil {
		return nil, nil, err
	}
	rows, err = queryAdhoc(ctx, q, `SELECT contact_id FROM segment_members WHERE segment_id = ?
		EXCEPT SELECT cid FROM (`+set+`) AS s`, append([]any{segmentID}, args...)...)
	left, err = collect(rows, err, scanString)
	return entered, left, err
}

// SegmentMembersAmong returns which of contactIDs have a member row.
func SegmentMembersAmong(ctx context.Context, q Querier, segmentID string, contactIDs []string) (_ []string, err error) {
	defer wrap(&err, "SegmentMembersAmong")
	rows, err := q.Query(ctx, `SELECT contact_id FROM segment_members
		WHERE segment_id = ? AND contact_id IN (SELECT value FROM json_each(?))`, segmentID, jsonArray(contactIDs))
	return collect(rows, err, scanString)
}
