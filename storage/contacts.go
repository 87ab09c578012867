package storage

import (
	"context"
	"encoding/json"
	"time"
)

// Contact is one address of a project's audience. Data is the stored JSON
// object of custom fields.
type Contact struct {
	ID         string
	ProjectID  string
	Email      string
	Subscribed bool
	Data       json.RawMessage
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

const contactColumns = `id, project_id, email, subscribed, data, created_at, updated_at`

func scanContact(s scanner) (Contact, error) {
	var c Contact
	var data string
	var created, updated int64
	err := s.Scan(&c.ID, &c.ProjectID, &c.Email, &c.Subscribed, &data, &created, &updated)
	c.Data = json.RawMessage(data)
	c.CreatedAt, c.UpdatedAt = FromMillis(created), FromMillis(updated)
	return c, notFound(err)
}

// InsertContact stores a new contact.
func (tx *Tx) InsertContact(ctx context.Context, c Contact) (err error) {
	defer wrap(&err, "Tx.InsertContact")
	_, err = tx.Exec(ctx, `INSERT INTO contacts (`+contactColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.ProjectID, c.Email, c.Subscribed, string(c.Data), Millis(c.CreatedAt), Millis(c.UpdatedAt))
	return err
}

// UpdateContact writes a contact's email, subscription, data and updatedAt.
func (tx *Tx) UpdateContact(ctx context.Context, c Contact) (err error) {
	defer wrap(&err, "Tx.UpdateContact")
	_, err = tx.Exec(ctx, `UPDATE contacts SET email = ?, subscribed = ?, data = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
		c.Email, c.Subscribed, string(c.Data), Millis(c.UpdatedAt), c.ID, c.ProjectID)
	return err
}

// DeleteContact removes a contact and, through foreign keys, its events.
func (tx *Tx) DeleteContact(ctx context.Context, projectID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteContact")
	n, err := affected(tx.Exec(ctx, `DELETE FROM contacts WHERE project_id = ? AND id = ?`, projectID, id))
	return n > 0, err
}

// ContactByEmail finds a contact by its normalised email. It reads the
// columns the key does not give (every upsert by email, /v1/track's above
// all, runs it on the single writer).
func ContactByEmail(ctx context.Context, q Querier, projectID, email string) (_ Contact, err error) {
	defer wrap(&err, "ContactByEmail")
	c := Contact{ProjectID: projectID, Email: email}
	var data string
	var created, updated int64
	err = q.QueryRow(ctx, `SELECT id, subscribed, data, created_at, updated_at FROM contacts WHERE project_id = ? AND email = ?`,
		projectID, email).Scan(&c.ID, &c.Subscribed, &data, &created, &updated)
	if err != nil {
		return Contact{}, notFound(err)
	}
	c.Data = json.RawMessage(data)
	c.CreatedAt, c.UpdatedAt = FromMillis(created), FromMillis(updated)
	return c, nil
}

// ContactByID finds a contact by id.
func ContactByID(ctx context.Context, q Querier, projectID, id string) (_ Contact, err error) {
	defer wrap(&err, "ContactByID")
	return scanContact(q.QueryRow(ctx, `SELECT `+contactColumns+` FROM contacts WHERE project_id = ? AND id = ?`, projectID, id))
}

// ContactsByIDs returns the project's contacts among ids, in no order.
func ContactsByIDs(ctx context.Context, q Querier, projectID string, ids []string) (_ []Contact, err error) {
	defer wrap(&err, "ContactsByIDs")
	rows, err := q.Query(ctx, `SELECT `+contactColumns+` FROM contacts
		WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))`, projectID, jsonArray(ids))
	return collect(rows, err, scanContact)
}

// ExistingEmails returns which of emails are contacts of the project.
func ExistingEmails(ctx context.Context, q Querier, projectID string, emails []string) (_ []string, err error) {
	defer wrap(&err, "ExistingEmails")
	rows, err := q.Query(ctx, `SELECT email FROM contacts
		WHERE project_id = ? AND email IN (SELECT value FROM json_each(?))`, projectID, jsonArray(emails))
	return collect(rows, err, func(s scanner) (string, error) {
		var e string
		return e, s.Scan(&e)
	})
}

func jsonArray(values []string) string {
	if values == nil {
		return "[]" // not null: PostgreSQL reads no elements of null
	}
	b, _ := json.Marshal(values)
	return string(b)
}
