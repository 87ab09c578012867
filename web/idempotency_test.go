package web_test

import (
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func trackReq(email, event string) map[string]any {
	return map[string]any{"email": email, "event": event}
}

func TestIdempotencyKeyRepeatIs409(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	first := e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", "k-1")
	expectStatus(t, first, 200)

	e.Clock.Advance(time.Minute)
	again := e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", "k-1")
	env := expectError(t, again, 409, "IDEMPOTENCY_KEY_REUSED")
	want := map[string]any{"key": "k-1", "originalRequest": "POST /v1/track",
		"originalRequestAt": "2026-01-15T12:00:00Z", "originalStatusCode": float64(200)}
	for k, v := range want {
		if env.Error.Details[k] != v {
			t.Errorf("details.%s = %v, want %v", k, env.Error.Details[k], v)
		}
	}
	// A different body does not matter: the key is what is remembered.
	other := e.Public("POST", "/v1/track", trackReq("b@example.com", "other"), "Idempotency-Key", "k-1")
	expectError(t, other, 409, "IDEMPOTENCY_KEY_REUSED")

	if n := countEvents(t, e, "signup"); n != 1 {
		t.Fatalf("%d signup events, want 1", n)
	}
	if n := countContacts(t, e); n != 1 {
		t.Fatalf("%d contacts, want 1", n)
	}
	// Without a key, each call records a new event.
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "signup")), 200)
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "signup")), 200)
	if n := countEvents(t, e, "signup"); n != 3 {
		t.Fatalf("%d signup events, want 3", n)
	}
}

func countEvents(t *testing.T, e *webtest.Env, name string) int {
	t.Helper()
	var p page[eventJSON]
	e.Secret("GET", "/events?name="+name, nil).Decode(t, &p)
	return p.Total
}

func TestIdempotencyKeyIsFreedBy4xx(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	bad := e.Public("POST", "/v1/track", trackReq("not an email", "signup"), "Idempotency-Key", "k")
	expectField(t, bad, "email", "invalid_string")
	malformed := e.Public("POST", "/v1/track", `{`, "Idempotency-Key", "k")
	expectError(t, malformed, 400, "VALIDATION_ERROR")
	reserved := e.Public("POST", "/v1/track", trackReq("a@example.com", "email.sent"), "Idempotency-Key", "k")
	expectField(t, reserved, "event", "reserved_event")

	ok := e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", "k")
	expectStatus(t, ok, 200)
	expectError(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", "k"), 409, "IDEMPOTENCY_KEY_REUSED")
}

func TestIdempotencyKeyValidation(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, key := range []string{strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
		r := e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", key)
		expectError(t, r, 400, "BAD_REQUEST")
	}
	// Go's client refuses to send DEL, so write that request by hand.
	body := `{"email":"a@example.com","event":"signup"}`
	raw := rawRequest(t, e, "POST /v1/track HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+e.Project.Public+
		"\r\nIdempotency-Key: del\x7f\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
	if !strings.HasPrefix(raw, "HTTP/1.1 400") {
		t.Fatalf("DEL in key: %s", raw)
	}
	if n := countEvents(t, e, "signup"); n != 0 {
		t.Fatalf("refused requests recorded %d events", n)
	}
	for _, key := range []string{strings.Repeat("k", 255), "x", " !~", `{"a":1}`} {
		r := e.Public("POST", "/v1/track", trackReq("a@example.com", "signup"), "Idempotency-Key", key)
		expectStatus(t, r, 200)
	}
}

func TestIdempotencyKeyExpires(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
	e.Clock.Advance(24*time.Hour - time.Millisecond)
	expectError(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 409, "IDEMPOTENCY_KEY_REUSED")
	e.Clock.Advance(time.Millisecond)
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
	// The new claim starts a new 24 hours.
	e.Clock.Advance(time.Hour)
	env := expectError(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 409, "IDEMPOTENCY_KEY_REUSED")
	if env.Error.Details["originalRequestAt"] != "2026-01-16T12:00:00Z" {
		t.Fatalf("details %v", env.Error.Details)
	}
}

func TestIdempotencyKeyIsPerProject(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	p2, err := e.App.Accounts.CreateProject(t.Context(), "Second")
	if err != nil {
		t.Fatal(err)
	}
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
	expectStatus(t, e.Do("POST", "/v1/track", p2.Public, trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
}

func TestIdempotencyKeyIgnoredWhereNotHonoured(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	// The dashboard alias does not take Idempotency-Key, so the key is
	// neither claimed nor checked there.
	for i := 0; i < 2; i++ {
		expectStatus(t, e.Secret("POST", "/events/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
	}
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e"), "Idempotency-Key", "k"), 200)
}

func TestIdempotencyKeyConcurrentRequestsOneWins(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	const n = 16
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.Public("POST", "/v1/track", trackReq("a@example.com", "race"), "Idempotency-Key", "same").Status
		}()
	}
	wg.Wait()
	won := 0
	for _, s := range statuses {
		switch s {
		case 200:
			won++
		case 409:
		default:
			t.Fatalf("status %d", s)
		}
	}
	if won != 1 || countEvents(t, e, "race") != 1 {
		t.Fatalf("%d requests won (statuses %v), %d events", won, statuses, countEvents(t, e, "race"))
	}
}

// rawRequest writes a request as given and returns the raw response.
func rawRequest(t *testing.T, e *webtest.Env, req string) string {
	t.Helper()
	conn, err := net.Dial("tcp", e.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(conn)
	return string(b)
}
