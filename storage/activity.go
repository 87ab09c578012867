package storage

import (
	"context"
	"encoding/json"
	"time"
)

// ActivityFilter selects events of the activity feed; empty fields select
// all.
type ActivityFilter struct {
	ProjectID string
	Name      string // one event name
	Prefix    string // a category of emitted names: "email.", "contact.", "segment."
	Tracked   bool   // only names integrators tracked (none of the emitted prefixes)
	ContactID string
}

// Activity is one feed item: an event with its contact's address.
type Activity struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	ContactID    string          `json:"contactId,omitempty"`
	ContactEmail string          `json:"contactEmail,omitempty"`
	Data         json.RawMessage `json:"data"`
	CreatedAt    time.Time       `json:"createdAt"`
}

const activityFilterSQL = ` FROM events ev LEFT JOIN contacts c ON c.id = ev.contact_id WHERE ev.project_id = ?1
	AND (?2 = '' OR ev.name = ?2)
	AND (?3 = '' OR ev.name LIKE ?3 || '%')
	AND (NOT ?4 OR (ev.name NOT LIKE 'email.%' AND ev.name NOT LIKE 'contact.%' AND ev.name NOT LIKE 'segment.%' AND ev.name NOT LIKE 'workflow.%'))
	AND (?5 = '' OR ev.contact_id = ?5)`

func (f ActivityFilter) args() []any {
	return []any{f.ProjectID, f.Name, f.Prefix, f.Tracked, f.ContactID}
}

// ListActivity returns up to limit events, newest first, before the id
// afterID ("" for the first page). Ids are UUIDv7: id order is the order
// events were recorded, and the table is clustered on it.
func ListActivity(ctx context.Context, q Querier, f ActivityFilter, afterID string, limit int) (_ []Activity, err error) {
	defer wrap(&err, "ListActivity")
	rows, err := q.Query(ctx, `SELECT ev.id, ev.name, COALESCE(ev.contact_id, ''), COALESCE(c.email, ''), ev.data, ev.created_at`+
		activityFilterSQL+` AND (?6 = '' OR ev.id < ?6) ORDER BY ev.id DESC LIMIT ?7`, append(f.args(), afterID, limit)...)
	return collect(rows, err, func(s scanner) (Activity, error) {
		var a Activity
		var data string
		var created int64
		err := s.Scan(&a.ID, &a.Type, &a.ContactID, &a.ContactEmail, &data, &created)
		a.Data, a.CreatedAt = json.RawMessage(data), FromMillis(created)
		return a, err
	})
}

// CountActivity counts the events a filter selects.
func CountActivity(ctx context.Context, q Querier, f ActivityFilter) (_ int, err error) {
	defer wrap(&err, "CountActivity")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+activityFilterSQL, f.args()...).Scan(&n)
	return n, err
}

// CountEventsByName counts a project's events per name recorded in
// [from, to).
func CountEventsByName(ctx context.Context, q Querier, projectID string, from, to time.Time) (_ map[string]int, err error) {
	defer wrap(&err, "CountEventsByName")
	rows, err := q.Query(ctx, `SELECT name, COUNT(*) FROM events WHERE project_id = ? AND created_at >= ? AND created_at < ?
		GROUP BY name`, projectID, Millis(from), Millis(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

// SlotCount is how many events of a name fell in one quarter hour.
type SlotCount struct {
	Name  string
	Start time.Time // a multiple of 15 minutes, UTC
	Count int
}

// QuarterHour is the slot of EmailEventSlots: every time zone's offset is
// a multiple of it, so slots regroup exactly into any zone's hours or days.
const QuarterHour = 15 * time.Minute

// EmailEventSlots counts a project's email.* events of the given names in
// [from, to) per quarter hour.
func EmailEventSlots(ctx context.Context, q Querier, projectID string, names []string, from, to time.Time) (_ []SlotCount, err error) {
	defer wrap(&err, "EmailEventSlots")
	namesJSON, _ := json.Marshal(names)
	slot := QuarterHour.Milliseconds()
	rows, err := q.Query(ctx, `SELECT name, created_at / ?1 * ?1, COUNT(*) FROM events
		WHERE project_id = ?2 AND name IN (SELECT value FROM json_each(?3)) AND created_at >= ?4 AND created_at < ?5
		GROUP BY 1, 2`, slot, projectID, string(namesJSON), Millis(from), Millis(to))
	return collect(rows, err, func(s scanner) (SlotCount, error) {
		var c SlotCount
		var start int64
		err := s.Scan(&c.Name, &start, &c.Count)
		c.Start = FromMillis(start)
		return c, err
	})
}

// CampaignCountsRow is one campaign with its email counts.
type CampaignCountsRow struct {
	ID, Name, Status string
	Counts           CampaignCounts
}

// AllCampaignCounts returns every campaign of a project, newest first,
// with its email counts (zero for campaigns without emails).
func AllCampaignCounts(ctx context.Context, q Querier, projectID string) (_ []CampaignCountsRow, err error) {
	defer wrap(&err, "AllCampaignCounts")
	rows, err := q.Query(ctx, `SELECT id, name, status FROM campaigns WHERE project_id = ? ORDER BY created_at DESC, id`, projectID)
	out, err := collect(rows, err, func(s scanner) (CampaignCountsRow, error) {
		var r CampaignCountsRow
		return r, s.Scan(&r.ID, &r.Name, &r.Status)
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	crow, err := q.Query(ctx, `SELECT campaign_id, `+campaignCountsSQL+` FROM emails
		WHERE project_id = ? AND campaign_id IS NOT NULL GROUP BY campaign_id`, projectID)
	if err != nil {
		return nil, err
	}
	defer crow.Close()
	counts := map[string]CampaignCounts{}
	for crow.Next() {
		var id string
		var c CampaignCounts
		if err := scanCounts(crow, &c, &id); err != nil {
			return nil, err
		}
		counts[id] = c
	}
	for i := range out {
		out[i].Counts = counts[out[i].ID]
	}
	return out, crow.Err()
}
