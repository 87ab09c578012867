package storage

import (
	"context"
	"errors"
)

// Events are inserted with no trigger on the INSERT (migration 00024): a
// trigger makes SQLite open a statement journal for every event. What the
// triggers did, every function here that inserts events does in the same
// transaction:
//   - an event names an existing contact, or none;
//   - a contact's first event of a name counts it in the name's stored
//     count (audience_counts kind 3), which the segment counts and bitmaps
//     read; the probe for an earlier event runs before the insert.
//
// The DELETE triggers on events stay (the count goes down with a
// contact's last event of the name), so every deletion path is unchanged.

// ErrEventContact is an event naming a contact that does not exist: what
// the contact's foreign key said before 00022, in its words.
var ErrEventContact = errors.New("storage: an event's contact does not exist: FOREIGN KEY constraint failed")

// eventProbeSQL says whether an event's contact (?3) exists, and whether
// it already has an event of the name (?2) in the project (?1): a seek in
// the contacts' id index and one in events_by_name_contact, whose leaf the
// insert then writes.
const eventProbeSQL = `SELECT
	EXISTS (SELECT 1 FROM contacts WHERE id = ?3),
	EXISTS (SELECT 1 FROM events INDEXED BY events_by_name_contact
		WHERE project_id = ?1 AND name = ?2 AND contact_id = ?3)`

// countEventNameSQL counts one more contact with an event named ?2.
const countEventNameSQL = `INSERT INTO audience_counts (project_id, kind, key, value, n) VALUES (?, 3, ?, '', 1)
	ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1`

// insertEventRowSQL is the event's row alone: no trigger, no SELECT, so
// no statement journal.
const insertEventRowSQL = `INSERT INTO events (id, project_id, contact_id, name, data, created_at) VALUES (?, ?, ?, ?, ?, ?)`

// InsertContactEvent stores an event only if its contact exists (and so
// its project: a project's deletion deletes its contacts), and reports
// whether it did: for a caller whose contact may have gone since it was
// read (an open or a click answered from memory).
func (tx *Tx) InsertContactEvent(ctx context.Context, e Event) (bool, error) {
	if e.ContactID == "" {
		return true, tx.insertEventRow(ctx, e, nil)
	}
	var exists, seen bool
	if err := tx.QueryRow(ctx, eventProbeSQL, e.ProjectID, e.Name, e.ContactID).Scan(&exists, &seen); err != nil {
		return false, err
	}
	if !exists {
		return false, nil
	}
	if err := tx.insertEventRow(ctx, e, e.ContactID); err != nil {
		return false, err
	}
	if !seen {
		if _, err := tx.Exec(ctx, countEventNameSQL, e.ProjectID, e.Name); err != nil {
			return false, err
		}
	}
	return true, nil
}

// InsertEvent stores an event. One naming a contact that does not exist
// fails with ErrEventContact.
func (tx *Tx) InsertEvent(ctx context.Context, e Event) error {
	ok, err := tx.InsertContactEvent(ctx, e)
	if err == nil && !ok {
		return ErrEventContact
	}
	return err
}

// InsertEventIfContact stores an event on its contact, or on none if the
// contact is gone.
func (tx *Tx) InsertEventIfContact(ctx context.Context, e Event) error {
	ok, err := tx.InsertContactEvent(ctx, e)
	if err == nil && !ok {
		return tx.insertEventRow(ctx, e, nil)
	}
	return err
}

func (tx *Tx) insertEventRow(ctx context.Context, e Event, contact any) error {
	_, err := tx.Exec(ctx, insertEventRowSQL, e.ID, e.ProjectID, contact, e.Name, string(e.Data), Millis(e.CreatedAt))
	return err
}
