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
			SELECT value ->> 'i', value ->> 'p', NULLIF(value ->> 'c', ''), value ->> 'n', value ->> 'd', value ->> 't'
			FROM json_each(?)`
	insertEventsPG = `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
			SELECT r ->> 'i', r ->> 'p', NULLIF(r ->> 'c', ''), r ->> 'n', r ->> 'd', (r ->> 't')::bigint
			FROM json_array_elements(?::json) AS r`
)

func (tx *Tx) InsertEvents(ctx context.Context, events []Event) (err error) {
	defer wrap(&err, "Tx.InsertEvents")
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
		if _, err := tx.Exec(ctx, insertEventsSQL, string(b)); err != nil {
			return err
		}
	}
	return nil
}
