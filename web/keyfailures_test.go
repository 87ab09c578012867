package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// The submission listener's view of the API's wrong-key counter: the
// API's wrong keys block SMTP at its own limit (10), SMTP's wrong keys
// count against the API's (20), and the minute ends both.
func TestKeyFailuresSharedWithSubmission(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 1000, FailedKeyLimit: 20})
	kf := e.Web.KeyFailures()
	const ip = "127.0.0.1" // webtest's client
	for i := 0; i < 9; i++ {
		expectError(t, e.Do("GET", "/contacts", fmt.Sprintf("sk_guess%d", i), nil), 401, "INVALID_API_KEY")
	}
	if blocked, _ := kf.Blocked(ip, 10); blocked {
		t.Fatal("blocked after 9 wrong keys")
	}
	expectError(t, e.Do("GET", "/contacts", "sk_guess9", nil), 401, "INVALID_API_KEY")
	blocked, retry := kf.Blocked(ip, 10)
	if !blocked || retry <= 0 || retry > time.Minute {
		t.Fatalf("after 10 API wrong keys: blocked %v, retry %v", blocked, retry)
	}
	if blocked, _ := kf.Blocked("192.0.2.1", 10); blocked {
		t.Fatal("another address is blocked")
	}
	// Ten more from SMTP: the API refuses the right key now.
	for i := 0; i < 10; i++ {
		kf.Count(ip)
	}
	expectError(t, e.Secret("GET", "/contacts", nil), 429, "RATE_LIMIT_EXCEEDED")
	e.Clock.Advance(time.Minute)
	if blocked, _ := kf.Blocked(ip, 10); blocked {
		t.Fatal("still blocked after the minute")
	}
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)

	// Rate limits off (HERALD_RATE_LIMIT=0): no counter at all.
	if off := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 0, FailedKeyLimit: 20}); off.Web.KeyFailures() != nil {
		t.Fatal("a key-failure counter with rate limits off")
	}
}
