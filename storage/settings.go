package storage

import "context"

// EnsureSetting returns the stored value of key, storing value first if the
// key has none. Two processes racing to create it agree on one value.
func (tx *Tx) EnsureSetting(ctx context.Context, key, value string) (_ string, err error) {
	defer wrap(&err, "Tx.EnsureSetting")
	if _, err := tx.Exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return "", err
	}
	var stored string
	err = tx.QueryRow(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&stored)
	return stored, err
}
