package storage

import "context"

// InsertContactIfNew inserts c unless its project already has a contact
// with its email, and says whether it did. It lets a caller that has just
// seen no such contact (a send's preview, on the reader pool) skip the
// lookup inside the write; a contact added in between is left as it is
// (no row, no trigger) and the caller reads it then.
func (tx *Tx) InsertContactIfNew(ctx context.Context, c Contact) (_ bool, err error) {
	defer wrap(&err, "Tx.InsertContactIfNew")
	n, err := affected(tx.Exec(ctx, `INSERT INTO contacts (`+contactColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, email) DO NOTHING`,
		c.ID, c.ProjectID, c.Email, c.Subscribed, string(c.Data), Millis(c.CreatedAt), Millis(c.UpdatedAt)))
	return n > 0, err
}
