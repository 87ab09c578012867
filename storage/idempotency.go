package storage

import (
	"context"
	"database/sql"
	"time"
)

// IdempotencyRecord is a claimed Idempotency-Key.
type IdempotencyRecord struct {
	Key        string
	Request    string // "POST /v1/track"
	StatusCode int    // 0 while the first request is still running
	CreatedAt  time.Time
}

// ClaimIdempotencyKey claims key for a project. When the key is already
// held and not expired, it returns the holder and claimed=false. An expired
// claim is taken over in the same statement, so two racing requests can
// never both win.
func (tx *Tx) ClaimIdempotencyKey(ctx context.Context, projectID, key, request string, now, expires time.Time) (_ IdempotencyRecord, _ bool, err error) {
	defer wrap(&err, "Tx.ClaimIdempotencyKey")
	n, err := affected(tx.Exec(ctx, `INSERT INTO idempotency_keys (project_id, key, request, status_code, created_at, expires_at)
		VALUES (?1, ?2, ?3, NULL, ?4, ?5)
		ON CONFLICT (project_id, key) DO UPDATE SET request = ?3, status_code = NULL, committed_status = NULL, created_at = ?4, expires_at = ?5
		WHERE idempotency_keys.expires_at <= ?4`, projectID, key, request, Millis(now), Millis(expires)))
	if err != nil || n > 0 {
		return IdempotencyRecord{}, n > 0, err
	}
	var rec IdempotencyRecord
	var status sql.NullInt64
	var created int64
	err = tx.QueryRow(ctx, `SELECT key, request, status_code, created_at FROM idempotency_keys WHERE project_id = ? AND key = ?`,
		projectID, key).Scan(&rec.Key, &rec.Request, &status, &created)
	rec.StatusCode, rec.CreatedAt = int(status.Int64), FromMillis(created)
	return rec, false, err
}

// CompleteIdempotencyKey records the status the first request answered with.
func (tx *Tx) CompleteIdempotencyKey(ctx context.Context, projectID, key string, status int) (err error) {
	defer wrap(&err, "Tx.CompleteIdempotencyKey")
	_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET status_code = ? WHERE project_id = ? AND key = ?`, status, projectID, key)
	return err
}

// ReleaseIdempotencyKey frees a key so that the request can be retried.
func (tx *Tx) ReleaseIdempotencyKey(ctx context.Context, projectID, key string) (err error) {
	defer wrap(&err, "Tx.ReleaseIdempotencyKey")
	_, err = tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE project_id = ? AND key = ?`, projectID, key)
	return err
}

// DeleteExpiredIdempotencyKeys removes claims that expired before now.
func (tx *Tx) DeleteExpiredIdempotencyKeys(ctx context.Context, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteExpiredIdempotencyKeys")
	return affected(tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= ?`, Millis(now)))
}
