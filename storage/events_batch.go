package storage

import (
	"context"
	"encoding/json"
)

// eventsPerStatement bounds the JSON one batch statement parses.
const eventsPerStatement = 2000

// eventsMissingContactSQL says whether a batch (a JSON array of rows with
// c) names a contact that does not exist.
const eventsMissingContactSQL = `SELECT EXISTS (SELECT 1 FROM json_each(?) j
	WHERE j.value ->> 'c' <> '' AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = j.value ->> 'c'))`

// countFirstEventsSQL counts, per name, the contacts of a batch (a JSON
// array of rows with p, n, c) that had no event of the name before it: the
// batch's inserts must come after it. A contact with two events of a name
// in the batch counts once; a contact that does not exist is not counted
// (its event is stored with no contact, or not at all).
const countFirstEventsSQL = `INSERT INTO audience_counts (project_id, kind, key, value, n)
	SELECT b.pid, 3, b.name, '', COUNT(DISTINCT b.cid)
	FROM (SELECT value ->> 'p' AS pid, value ->> 'n' AS name, value ->> 'c' AS cid FROM json_each(?)) b
	WHERE b.cid <> ''
	  AND EXISTS (SELECT 1 FROM contacts WHERE id = b.cid)
	  AND NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_name_contact
	                  WHERE project_id = b.pid AND name = b.name AND contact_id = b.cid)
	GROUP BY b.pid, b.name
	ON CONFLICT DO UPDATE SET n = n + excluded.n, v = v + 1`

// InsertEvents stores many events with few statements: each statement
// inserts a slice of them from one JSON array, which costs far less than
// a statement per event when a segment compute emits thousands. Before
// it, one statement checks the slice's contacts (a missing one fails the
// whole call with ErrEventContact, nothing stored) and one counts its
// contacts' first events of each name.
func (tx *Tx) InsertEvents(ctx context.Context, events []Event) error {
	type row struct {
		ID        string `json:"i"`
		ProjectID string `json:"p"`
		ContactID string `json:"c"`
		Name      string `json:"n"`
		Data      string `json:"d"`
		CreatedAt int64  `json:"t"`
	}
	for start := 0; start < len(events); start += eventsPerStatement {
		chunk := events[start:min(start+eventsPerStatement, len(events))]
		rows := make([]row, len(chunk))
		for i, e := range chunk {
			rows[i] = row{e.ID, e.ProjectID, e.ContactID, e.Name, string(e.Data), Millis(e.CreatedAt)}
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		var missing bool
		if err := tx.QueryRow(ctx, eventsMissingContactSQL, string(b)).Scan(&missing); err != nil {
			return err
		}
		if missing {
			return ErrEventContact
		}
		if err := tx.countFirstEvents(ctx, string(b)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
			SELECT value ->> 'i', value ->> 'p', NULLIF(value ->> 'c', ''), value ->> 'n', value ->> 'd', value ->> 't'
			FROM json_each(?)`, string(b)); err != nil {
			return err
		}
	}
	return nil
}

// countFirstEvents runs countFirstEventsSQL over rows, a JSON array.
func (tx *Tx) countFirstEvents(ctx context.Context, rows string) error {
	_, err := tx.Exec(ctx, countFirstEventsSQL, rows)
	return err
}

// countFirstEventsOf runs countFirstEventsSQL over events.
func (tx *Tx) countFirstEventsOf(ctx context.Context, events []Event) error {
	type row struct {
		ProjectID string `json:"p"`
		ContactID string `json:"c"`
		Name      string `json:"n"`
	}
	rows := make([]row, 0, len(events))
	for _, e := range events {
		if e.ContactID != "" {
			rows = append(rows, row{e.ProjectID, e.ContactID, e.Name})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	return tx.countFirstEvents(ctx, string(b))
}
