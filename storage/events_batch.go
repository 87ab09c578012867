package storage

import (
	"context"
	"encoding/json"
)

// eventsPerStatement bounds the JSON one batch statement parses.
const eventsPerStatement = 2000

// InsertEvents stores many events with few statements: each statement
// inserts a slice of them from one JSON array, which costs far less than
// a statement per event when a segment compute emits thousands.
const (
	insertEventsSQL = `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
			SELECT value ->> 0, value ->> 1, NULLIF(value ->> 2, ''), value ->> 3, value ->> 4, value ->> 5
			FROM json_each(?)`
	insertEventsPG = `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
			SELECT r ->> 0, r ->> 1, NULLIF(r ->> 2, ''), r ->> 3, r ->> 4, (r ->> 5)::bigint
			FROM json_array_elements(?::json) AS r`
)

func (tx *Tx) InsertEvents(ctx context.Context, events []Event) (err error) {
	defer wrap(&err, "Tx.InsertEvents")
	for start := 0; start < len(events); start += eventsPerStatement {
		chunk := events[start:min(start+eventsPerStatement, len(events))]
		rows := make([][6]any, len(chunk)) // [id, project, contact, name, data, created]
		for i, e := range chunk {
			rows[i] = [6]any{e.ID, e.ProjectID, e.ContactID, e.Name, string(e.Data), Millis(e.CreatedAt)}
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertEventsSQL, string(b)); err != nil {
			return err
		}
	}
	return nil
}
