package web_test

import (
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/web/webtest"
)

// A process that dies mid-request leaves its Idempotency-Key in progress.
// At the next start the key is released when the request's effect never
// committed, and completed with its status when it did: a retry is then
// run, or answered as a repeat, instead of 409 "in progress" for a day.
func TestIdempotencyKeysOfACrashAreSettledAtStart(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ctx := t.Context()
	pid := e.Project.ID
	email, event := "crash@example.com", "paid"

	// Died before its effect: only the claim exists.
	if err := e.App.ClaimIdempotencyKey(ctx, pid, "before-commit", "POST /v1/track"); err != nil {
		t.Fatal(err)
	}
	// Died after its effect committed, before its status was recorded.
	if err := e.App.ClaimIdempotencyKey(ctx, pid, "after-commit", "POST /v1/track"); err != nil {
		t.Fatal(err)
	}
	work := app.IdempotentRequest(ctx, pid, "after-commit", 200)
	if _, err := e.App.Audience.Track(work, pid, audience.TrackInput{Email: &email, Event: &event}); err != nil {
		t.Fatal(err)
	}
	env := expectError(t, e.Public("POST", "/v1/track", trackReq(email, event), "Idempotency-Key", "after-commit"),
		409, "IDEMPOTENCY_KEY_REUSED")
	if env.Error.Details["originalStatusCode"] != nil {
		t.Fatalf("in progress before the restart: %v", env.Error.Details)
	}

	if err := e.App.RecoverIdempotencyKeys(ctx); err != nil { // the next start
		t.Fatal(err)
	}
	expectStatus(t, e.Public("POST", "/v1/track", trackReq(email, event), "Idempotency-Key", "before-commit"), 200)
	env = expectError(t, e.Public("POST", "/v1/track", trackReq(email, event), "Idempotency-Key", "after-commit"),
		409, "IDEMPOTENCY_KEY_REUSED")
	if env.Error.Details["originalStatusCode"] != float64(200) {
		t.Fatalf("committed request not answered with its status: %v", env.Error.Details)
	}
	if n := countEvents(t, e, event); n != 2 {
		t.Fatalf("%d events, want 2 (the committed one and the retried one)", n)
	}

	// A request that finished normally is untouched by a start.
	expectStatus(t, e.Public("POST", "/v1/track", trackReq(email, "x"), "Idempotency-Key", "done"), 200)
	if err := e.App.RecoverIdempotencyKeys(ctx); err != nil {
		t.Fatal(err)
	}
	expectError(t, e.Public("POST", "/v1/track", trackReq(email, "x"), "Idempotency-Key", "done"), 409, "IDEMPOTENCY_KEY_REUSED")
}
