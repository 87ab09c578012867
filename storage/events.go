package storage

import (
	"context"
	"encoding/json"
	"time"
)

// Event is one tracked or emitted event.
type Event struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"-"`
	ContactID string          `json:"contactId,omitempty"`
	Name      string          `json:"name"`
	Data      json.RawMessage `json:"data"`
	CreatedAt time.Time       `json:"createdAt"`
}

const eventColumns = `id, project_id, COALESCE(contact_id, ''), name, data, created_at`

func scanEvent(s scanner) (Event, error) {
	var e Event
	var data string
	var created int64
	err := s.Scan(&e.ID, &e.ProjectID, &e.ContactID, &e.Name, &data, &created)
	e.Data = json.RawMessage(data)
	e.CreatedAt = FromMillis(created)
	return e, notFound(err)
}

// InsertEvent stores an event.
func (tx *Tx) InsertEvent(ctx context.Context, e Event) (err error) {
	defer wrap(&err, "Tx.InsertEvent")
	var contact any
	if e.ContactID != "" {
		contact = e.ContactID
	}
	_, err = tx.Exec(ctx, `INSERT INTO events (id, project_id, contact_id, name, data, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.ProjectID, contact, e.Name, string(e.Data), Millis(e.CreatedAt))
	return err
}

// EventFilter selects events; empty fields select all.
type EventFilter struct {
	ProjectID string
	Name      string
	ContactID string
}

const eventFilterSQL = ` FROM events WHERE project_id = ?1
	AND (?2 = '' OR name = ?2)
	AND (?3 = '' OR contact_id = ?3)`

// ListEvents returns up to limit events, newest first, after the cursor.
// Ids are UUIDv7, so id order is the order events were recorded.
func ListEvents(ctx context.Context, q Querier, f EventFilter, after *Cursor, limit int) (_ []Event, err error) {
	defer wrap(&err, "ListEvents")
	query := `SELECT ` + eventColumns + eventFilterSQL
	var afterID any
	if after != nil {
		query += ` AND id < ?4`
		afterID = after.ID
	}
	query += ` ORDER BY id DESC LIMIT ?5`
	rows, err := q.Query(ctx, query, f.ProjectID, f.Name, f.ContactID, afterID, limit)
	return collect(rows, err, scanEvent)
}

// EventCursor is the cursor that continues an event list after e.
func EventCursor(e Event) Cursor {
	return Cursor{Sort: "id", Desc: true, ID: e.ID}
}

// CountEvents counts the events a filter selects.
func CountEvents(ctx context.Context, q Querier, f EventFilter) (_ int, err error) {
	defer wrap(&err, "CountEvents")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+eventFilterSQL, f.ProjectID, f.Name, f.ContactID).Scan(&n)
	return n, err
}

// NameCount is an event name and how often it occurred.
type NameCount struct {
	Name     string    `json:"name"`
	Count    int       `json:"count"`
	LastSeen time.Time `json:"lastSeen"`
}

// EventStats counts events per name, most frequent first.
func EventStats(ctx context.Context, q Querier, projectID string) (_ []NameCount, err error) {
	defer wrap(&err, "EventStats")
	rows, err := q.Query(ctx, `SELECT name, COUNT(*), MAX(created_at) FROM events WHERE project_id = ?
		GROUP BY name ORDER BY COUNT(*) DESC, name`, projectID)
	return collect(rows, err, func(s scanner) (NameCount, error) {
		var nc NameCount
		var last int64
		err := s.Scan(&nc.Name, &nc.Count, &last)
		nc.LastSeen = FromMillis(last)
		return nc, err
	})
}

// EventNames returns the distinct event names of a project, sorted.
func EventNames(ctx context.Context, q Querier, projectID string) (_ []string, err error) {
	defer wrap(&err, "EventNames")
	rows, err := q.Query(ctx, `SELECT DISTINCT name FROM events WHERE project_id = ? ORDER BY name`, projectID)
	return collect(rows, err, func(s scanner) (string, error) {
		var n string
		return n, s.Scan(&n)
	})
}

// DeleteEventsNamed deletes every event of a project with that name.
func (tx *Tx) DeleteEventsNamed(ctx context.Context, projectID, name string) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteEventsNamed")
	return affected(tx.Exec(ctx, `DELETE FROM events WHERE project_id = ? AND name = ?`, projectID, name))
}
