package storage

import (
	"context"
	"database/sql"
)

// idempotentEffect marks a context as the work of a request under an
// Idempotency-Key: every write made with it also records, in the same
// transaction, the status the request will answer. After a crash the
// key's row then tells whether the request's effect was committed.
type idempotentEffect struct {
	projectID, key string
	status         int
}

type idempotentEffectKey struct{}

// WithIdempotentEffect returns ctx whose writes mark the claimed key as
// committed with status.
func WithIdempotentEffect(ctx context.Context, projectID, key string, status int) context.Context {
	return context.WithValue(ctx, idempotentEffectKey{}, idempotentEffect{projectID, key, status})
}

func markIdempotentEffect(ctx context.Context, tx *Tx) error {
	e, ok := ctx.Value(idempotentEffectKey{}).(idempotentEffect)
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET committed_status = ?
		WHERE project_id = ? AND key = ? AND status_code IS NULL`, e.status, e.projectID, e.key)
	return err
}

// RecoverIdempotencyKeys settles the keys whose request never finished
// (status_code NULL), which can only be left by a process that died: a key
// whose effect committed is completed with the status it would have
// answered, the others are released so that the request can be retried.
// It must run at start, before requests are served.
func (tx *Tx) RecoverIdempotencyKeys(ctx context.Context) (completed, released int64, err error) {
	defer wrap(&err, "Tx.RecoverIdempotencyKeys")
	var res sql.Result
	if res, err = tx.Exec(ctx, `UPDATE idempotency_keys SET status_code = committed_status
		WHERE status_code IS NULL AND committed_status IS NOT NULL`); err != nil {
		return 0, 0, err
	}
	completed, _ = res.RowsAffected()
	released, err = affected(tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE status_code IS NULL`))
	return completed, released, err
}
