package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func TestPublicRateLimitPerIP(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 1000, PublicRateLimit: 4})
	paths := []string{"/t/o/nosuch", "/t/c/nosuch", "/unsubscribe/nosuch", "/manage/nosuch"}
	for _, p := range paths {
		if r := e.Do("GET", p, "", nil); r.Status == 429 {
			t.Fatalf("%s limited within the budget", p)
		}
	}
	for _, p := range append(paths, "/subscribe/x", "/unsubscribe/x") {
		method := "GET"
		if p == "/unsubscribe/x" {
			method = "POST" // the one-click POST counts too
		}
		r := e.Do(method, p, "", nil)
		if r.Status != 429 || r.Header.Get("Retry-After") != "60" {
			t.Fatalf("%s %s over the limit: %d %v %s", method, p, r.Status, r.Header, r.Body)
		}
		if strings.HasPrefix(p, "/t/o/") {
			if r.Header.Get("Content-Type") != "image/gif" || !strings.HasPrefix(string(r.Body), "GIF89a") {
				t.Fatalf("pixel over the limit is not an image: %v", r.Header)
			}
			continue
		}
		expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	}
	r := e.Do("GET", "/t/o/nosuch", "", nil)
	if r.Status != 429 || r.Header.Get("Content-Type") != "image/gif" {
		t.Fatalf("pixel over the limit: %d %v", r.Status, r.Header)
	}
	// Keyed routes and /config are not under this limit.
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
	expectStatus(t, e.Do("GET", "/config", "", nil), 200)
	e.Clock.Advance(time.Minute)
	if r := e.Do("GET", "/t/c/nosuch", "", nil); r.Status == 429 {
		t.Fatal("still limited after the minute")
	}
}

func TestRateLimitZeroTurnsOffIPLimits(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 0, PublicRateLimit: 1, FailedKeyLimit: 1})
	for i := 0; i < 5; i++ {
		if r := e.Do("GET", "/t/c/nosuch", "", nil); r.Status == 429 {
			t.Fatal("public limit with HERALD_RATE_LIMIT=0")
		}
		expectError(t, e.Do("GET", "/contacts", "sk_wrong", nil), 401, "INVALID_API_KEY")
	}
}

func TestWrongKeysPerIP(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 1000, FailedKeyLimit: 20})
	for i := 0; i < 20; i++ {
		expectError(t, e.Do("GET", "/contacts", fmt.Sprintf("sk_guess%d", i), nil), 401, "INVALID_API_KEY")
	}
	// The next ones are refused, the right key too: a right guess must not
	// look different from a wrong one.
	for _, key := range []string{"sk_guess21", e.Project.Secret} {
		r := e.Do("GET", "/contacts", key, nil)
		expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
		if r.Header.Get("Retry-After") != "60" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
	}
	e.Clock.Advance(30 * time.Second)
	r := e.Do("POST", "/v1/track", e.Project.Public, map[string]any{"email": "a@example.com", "event": "e"})
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") != "30" {
		t.Fatalf("Retry-After %q after 30s", r.Header.Get("Retry-After"))
	}
	e.Clock.Advance(30 * time.Second)
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
}

func TestConfigWarnings(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	if w, ok := e.Do("GET", "/config", "", nil).JSON()["warnings"].([]any); !ok || len(w) != 0 {
		t.Fatalf("warnings %v, want []", w)
	}
	e = webtest.New(t, webtest.Options{NoWorkers: true, Warnings: []string{"HERALD_BASE_URL is not https"}})
	w := e.Do("GET", "/config", "", nil).JSON()["warnings"].([]any)
	if len(w) != 1 || w[0] != "HERALD_BASE_URL is not https" {
		t.Fatalf("warnings %v", w)
	}
}
