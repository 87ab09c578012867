package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// ValidIdempotencyKey reports whether k is 1..255 printable ASCII characters.
func ValidIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > MaxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// ClaimIdempotencyKey claims a key for a request ("POST /v1/send") before
// it runs. The key is shared by every endpoint that takes one, so a key
// used on /v1/track is refused on /v1/send too.
func (a *App) ClaimIdempotencyKey(ctx context.Context, projectID, key, request string) error {
	if !ValidIdempotencyKey(key) {
		return apierr.BadRequest("Idempotency-Key must be 1 to 255 printable ASCII characters")
	}
	now := a.now()
	var held storage.IdempotencyRecord
	var claimed bool
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		held, claimed, err = tx.ClaimIdempotencyKey(ctx, projectID, key, request, now, now.Add(a.idemTTL))
		return err
	})
	if err != nil || claimed {
		return err
	}
	details := map[string]any{
		"key":                key,
		"originalRequest":    held.Request,
		"originalRequestAt":  held.CreatedAt.Format(time.RFC3339Nano),
		"originalStatusCode": nil,
	}
	msg := "This Idempotency-Key was already used"
	if held.StatusCode != 0 {
		details["originalStatusCode"] = held.StatusCode
	} else {
		msg = "A request with this Idempotency-Key is still in progress"
	}
	return &apierr.Error{Kind: apierr.KindConflict, Code: "IDEMPOTENCY_KEY_REUSED", Message: msg, Details: details,
		Suggestion: "Use a new Idempotency-Key for a new request; keys expire after " + a.idemTTL.String()}
}

// FinishIdempotencyKey records the response status of a claimed request. A
// failed request (4xx or 5xx) changed nothing, so its key is freed for a
// corrected retry.
func (a *App) FinishIdempotencyKey(ctx context.Context, projectID, key string, status int) error {
	// Recorded even when the client has gone: the request itself ran.
	ctx = context.WithoutCancel(ctx)
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		if status >= 400 {
			return tx.ReleaseIdempotencyKey(ctx, projectID, key)
		}
		return tx.CompleteIdempotencyKey(ctx, projectID, key, status)
	})
}

// IdempotentRequest returns ctx for the work of a request that claimed key:
// its writes record that its effect committed, with the status it answers
// on success, so that RecoverIdempotencyKeys can tell after a crash.
func IdempotentRequest(ctx context.Context, projectID, key string, status int) context.Context {
	return storage.WithIdempotentEffect(ctx, projectID, key, status)
}

// RecoverIdempotencyKeys settles the keys left in progress by a process
// that died: answered with the stored status when the request's effect
// committed, released when it did not. It runs at start, before serving.
func (a *App) RecoverIdempotencyKeys(ctx context.Context) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		completed, released, err := tx.RecoverIdempotencyKeys(ctx)
		if err == nil && completed+released > 0 {
			a.log.Info("idempotency keys of interrupted requests settled", "completed", completed, "released", released)
		}
		return err
	})
}
