package storage

import (
	"context"
)

// InsertContactEvent stores an event only if its contact exists (and so
// does its project: a project's deletion deletes its contacts), and
// reports whether it did: for a caller whose contact may have gone since
// it was read, such as an open or a click answered from memory.
//
// It is InsertEvent, whose statement checks the contact anyway (00022's
// events_contact_exists; the project's foreign key): a failed check aborts
// that statement alone, undone by the statement journal the INSERT
// triggers on events make SQLite keep for it, and the transaction goes on.
// So the check costs nothing when the contact is there. An INSERT ...
// SELECT ... WHERE EXISTS (the contact) was measured 2.7 µs dearer per
// event (docs/performance.md, "The recorded event's SQL, fifth pass").
//
// On PostgreSQL a failed statement aborts its whole transaction, so there
// the insert selects the contact and stores nothing when it is gone.
func (tx *Tx) InsertContactEvent(ctx context.Context, e Event) (_ bool, err error) {
	defer wrap(&err, "Tx.InsertContactEvent")
	if tx.pg != nil {
		n, err := affected(tx.Exec(ctx, `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
			SELECT ?, ?, id, ?, ?, ? FROM contacts WHERE id = ?`,
			e.ID, e.ProjectID, e.Name, string(e.Data), Millis(e.CreatedAt), e.ContactID))
		return n > 0, err
	}
	err = tx.InsertEvent(ctx, e)
	if isForeignKeyViolation(err) {
		return false, nil
	}
	return err == nil, err
}
