package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func TestAuthentication(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	other := webtest.New(t, webtest.Options{NoWorkers: true}) // keys of another server's project
	track := map[string]any{"email": "a@example.com", "event": "signup"}
	unknownSecret := "sk_" + strings.Repeat("ab", 32)
	cases := []struct {
		name, method, path, auth string
		body                     any
		status                   int
		code                     string
	}{
		{"no header", "GET", "/contacts", "", nil, 401, "MISSING_AUTH"},
		{"not bearer", "GET", "/contacts", "Basic " + e.Project.Secret, nil, 401, "MISSING_AUTH"},
		{"bearer without token", "GET", "/contacts", "Bearer ", nil, 401, "MISSING_AUTH"},
		{"bearer only", "GET", "/contacts", "Bearer", nil, 401, "MISSING_AUTH"},
		{"malformed key", "GET", "/contacts", "Bearer sk_123", nil, 401, "INVALID_API_KEY"},
		{"upper-case hex", "GET", "/contacts", "Bearer " + strings.ToUpper(e.Project.Secret), nil, 401, "INVALID_API_KEY"},
		{"unknown key", "GET", "/contacts", "Bearer " + unknownSecret, nil, 401, "INVALID_API_KEY"},
		{"another server's key", "GET", "/contacts", "Bearer " + other.Project.Secret, nil, 401, "INVALID_API_KEY"},
		{"public key on a secret endpoint", "GET", "/contacts", "Bearer " + e.Project.Public, nil, 401, "INVALID_API_KEY"},
		{"public key on verify", "POST", "/v1/verify", "Bearer " + e.Project.Public, map[string]any{"email": "a@example.com"}, 401, "INVALID_API_KEY"},
		{"secret key on track", "POST", "/v1/track", "Bearer " + e.Project.Secret, track, 401, "INVALID_API_KEY"},
		{"public key on the dashboard alias", "POST", "/events/track", "Bearer " + e.Project.Public, track, 401, "INVALID_API_KEY"},
		{"no key on track", "POST", "/v1/track", "", track, 401, "MISSING_AUTH"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var headers []string
			if c.auth != "" {
				headers = []string{"Authorization", c.auth}
			}
			r := e.Do(c.method, c.path, "", c.body, headers...)
			expectError(t, r, c.status, c.code)
		})
	}
	// None of the refused calls created anything.
	r := e.Secret("GET", "/contacts", nil)
	var p page[contactJSON]
	r.Decode(t, &p)
	if p.Total != 0 {
		t.Fatalf("refused requests created contacts: %s", r.Body)
	}

	t.Run("accepted", func(t *testing.T) {
		expectStatus(t, e.Public("POST", "/v1/track", track), 200)
		expectStatus(t, e.Secret("POST", "/events/track", track), 200)
		expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
		expectStatus(t, e.Do("GET", "/contacts", "", nil, "Authorization", "bearer  "+e.Project.Secret+" "), 200)
	})
}

func TestConfigNeedsNoKey(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	r := e.Do("GET", "/config", "", nil)
	expectStatus(t, r, 200)
	if _, ok := r.JSON()["features"].(map[string]any); !ok {
		t.Fatalf("no features: %s", r.Body)
	}
}

func TestUnknownRoutesAreJSON404(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, c := range []struct{ method, path string }{
		{"GET", "/nope"},
		{"GET", "/v1/track"},         // wrong method
		{"PUT", "/contacts"},         // wrong method
		{"GET", "/contacts/"},        // trailing slash: no redirect
		{"GET", "/contacts/fields/"}, // trailing slash on a static segment
		{"GET", "/contacts/a/b/c/d"}, // too deep
		{"GET", "/contacts/x/"},
		{"GET", "/events/stats/usage/x"},
	} {
		r := e.Secret(c.method, c.path, nil)
		expectError(t, r, 404, "NOT_FOUND")
	}
}

func TestRequestIDOnEveryResponse(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	seen := map[string]bool{}
	for _, r := range []webtest.Response{
		e.Secret("GET", "/contacts", nil),
		e.Do("GET", "/config", "", nil),
		e.Do("GET", "/contacts", "", nil),
		e.Secret("GET", "/nope", nil),
	} {
		id := r.Header.Get("X-Request-Id")
		if id == "" || seen[id] {
			t.Fatalf("request id %q missing or repeated", id)
		}
		seen[id] = true
	}
}

func TestMalformedJSONIs400(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, body := range []string{`{`, `{"email": }`, `{"email":"a@example.com"} {}`, `nul`, "\x00",
		`{"email":"a@example.com"}}`, `{"email":"a@example.com"}]`, `{"email":"a@example.com"} x`} {
		r := e.Secret("POST", "/contacts", body)
		expectError(t, r, 400, "VALIDATION_ERROR")
		r = e.Public("POST", "/v1/track", body)
		expectError(t, r, 400, "VALIDATION_ERROR")
	}
}

func TestWrongJSONTypesAre422(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	cases := []struct {
		path, body, field string
	}{
		{"/contacts", `[]`, ""},
		{"/contacts", `"a@example.com"`, ""},
		{"/contacts", `{"email": 5}`, "email"},
		{"/contacts", `{"email": "a@example.com", "subscribed": "yes"}`, "subscribed"},
		{"/contacts", `{"email": "a@example.com", "data": [1]}`, "data"},
		{"/contacts/lookup", `{"emails": "a@example.com"}`, "emails"},
		{"/contacts/bulk-delete", `{"contactIds": [1]}`, "contactIds"},
	}
	for _, c := range cases {
		r := e.Secret("POST", c.path, c.body)
		expectField(t, r, c.field, "invalid_type")
	}
	r := e.Public("POST", "/v1/track", `{"email": "a@example.com", "event": 1}`)
	expectField(t, r, "event", "invalid_type")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts created by refused requests", n)
	}
}

func countContacts(t *testing.T, e *webtest.Env) int {
	t.Helper()
	var p page[contactJSON]
	e.Secret("GET", "/contacts", nil).Decode(t, &p)
	return p.Total
}

func TestBodyTooLargeIs413(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	big := `{"email": "a@example.com", "data": {"x": "` + strings.Repeat("a", 1<<20) + `"}}`
	expectError(t, e.Secret("POST", "/contacts", big), 413, "PAYLOAD_TOO_LARGE")
	expectError(t, e.Public("POST", "/v1/track", `{"email":"a@example.com","event":"e","data":{"x":"`+strings.Repeat("a", 1<<20)+`"}}`), 413, "PAYLOAD_TOO_LARGE")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts created by refused requests", n)
	}
	// Just under the limit is fine.
	ok := `{"email": "a@example.com", "data": {"x": "` + strings.Repeat("a", 1<<20-100) + `"}}`
	expectStatus(t, e.Secret("POST", "/contacts", ok), 201)
}

func TestRateLimit(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 3})
	other := e.App // a second project of the same server has its own budget
	p2, err := other.Accounts.CreateProject(t.Context(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r := e.Secret("GET", "/contacts", nil)
		expectStatus(t, r, 200)
		if got := r.Header.Get("RateLimit-Remaining"); got != string(rune('2'-i)) {
			t.Fatalf("request %d: RateLimit-Remaining %q", i, got)
		}
		if r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Reset") != "60" {
			t.Fatalf("headers %v", r.Header)
		}
	}
	// The budget is per project across endpoints and key kinds.
	r := e.Public("POST", "/v1/track", map[string]any{"email": "a@example.com", "event": "e"})
	env := expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") != "60" || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("429 headers %v", r.Header)
	}
	if env.Error.Details["limit"] != float64(3) {
		t.Fatalf("details %v", env.Error.Details)
	}
	if n := countContactsWith(t, e, p2.Secret); n != 0 {
		t.Fatal("other project saw contacts")
	}
	expectStatus(t, e.Do("GET", "/contacts", p2.Secret, nil), 200)

	e.Clock.Advance(45 * time.Second)
	r = e.Secret("GET", "/contacts", nil)
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") != "15" {
		t.Fatalf("Retry-After %q after 45s", r.Header.Get("Retry-After"))
	}
	e.Clock.Advance(15 * time.Second)
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
	// /config has no project, so no limit.
	for i := 0; i < 5; i++ {
		expectStatus(t, e.Do("GET", "/config", "", nil), 200)
	}
}

func countContactsWith(t *testing.T, e *webtest.Env, key string) int {
	t.Helper()
	var p page[contactJSON]
	e.Do("GET", "/contacts", key, nil).Decode(t, &p)
	return p.Total
}

func TestTimestampsAreUTCMillis(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	c := createContact(t, e, map[string]any{"email": "a@example.com"})
	if c.CreatedAt != "2026-01-15T12:00:00Z" {
		t.Fatalf("createdAt %q", c.CreatedAt)
	}
	e.Clock.Advance(1500 * time.Microsecond)
	c = createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"x": 1}})
	if c.UpdatedAt != "2026-01-15T12:00:00.001Z" {
		t.Fatalf("updatedAt %q", c.UpdatedAt)
	}
}

func TestRegeneratedKeysStopAtOnce(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	old := e.Project
	// Both keys are used first, so that they are in the key cache.
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "e")), 200)
	p, err := e.App.Accounts.RegenerateKeys(t.Context(), old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Secret == old.Secret || p.Public == old.Public {
		t.Fatal("keys not replaced")
	}
	expectError(t, e.Do("GET", "/contacts", old.Secret, nil), 401, "INVALID_API_KEY")
	expectError(t, e.Do("POST", "/v1/track", old.Public, trackReq("a@example.com", "e")), 401, "INVALID_API_KEY")
	expectStatus(t, e.Do("GET", "/contacts", p.Secret, nil), 200)
	expectStatus(t, e.Do("POST", "/v1/track", p.Public, trackReq("a@example.com", "e")), 200)
}
