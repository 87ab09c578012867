package web_test

import (
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

func TestSessionOnResourceEndpoints(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	bob := signupUser(t, e, "bob@example.com")
	p := ada.newProject("Ada's")
	q := bob.newProject("Bob's")

	r := ada.in(p.ID, "POST", "/contacts", map[string]any{"email": "c@example.com"})
	expectStatus(t, r, 201)
	r = ada.in(p.ID, "GET", "/contacts", nil)
	expectStatus(t, r, 200)
	if n := len(r.JSON()["data"].([]any)); n != 1 {
		t.Fatalf("contacts %s", r.Body)
	}
	// The key of the project sees the contact the session made.
	r = e.Do("GET", "/contacts", *secretOf(t, ada, p.ID), nil)
	if n := len(r.JSON()["data"].([]any)); n != 1 {
		t.Errorf("by key: %s", r.Body)
	}

	expectError(t, ada.do("GET", "/contacts", nil), 400, "BAD_REQUEST")                              // no X-Project-Id
	expectError(t, ada.in(q.ID, "GET", "/contacts", nil), 403, "PROJECT_ACCESS_DENIED")              // not hers
	expectError(t, ada.in("no-such-project", "GET", "/contacts", nil), 403, "PROJECT_ACCESS_DENIED") // unknown
	expectError(t, ada.in(q.ID, "POST", "/contacts", map[string]any{"email": "x@example.com"}), 403, "PROJECT_ACCESS_DENIED")
	bad := &browser{t: t, e: e, cookie: "not-a-session"}
	expectError(t, bad.in(p.ID, "GET", "/contacts", nil), 401, "UNAUTHORIZED")

	// Authorization wins over the cookie: a bad key is a bad key.
	expectError(t, ada.in(p.ID, "GET", "/contacts", nil, "Authorization", "Bearer sk_nope"), 401, "INVALID_API_KEY")
	r = ada.in(q.ID, "GET", "/contacts", nil, "Authorization", "Bearer "+e.Project.Secret)
	expectStatus(t, r, 200)
	if n := len(r.JSON()["data"].([]any)); n != 0 {
		t.Errorf("the key's project has no contacts: %s", r.Body)
	}

	// /v1/track stays public-key only.
	r = ada.in(p.ID, "POST", "/v1/track", map[string]any{"event": "x", "email": "c@example.com"})
	expectError(t, r, 401, "MISSING_AUTH")
	// Neither a key nor a cookie.
	expectError(t, e.Do("GET", "/contacts", "", nil), 401, "MISSING_AUTH")
}

// secretOf reads a project's secret key as its owner.
func secretOf(t *testing.T, b *browser, projectID string) *string {
	t.Helper()
	r := b.do("GET", "/users/@me/projects/"+projectID, nil)
	expectStatus(t, r, 200)
	var p projectJSON
	r.Decode(t, &p)
	if p.Secret == nil {
		t.Fatal("owner sees no secret")
	}
	return p.Secret
}

func TestAccountEndpointsTakeTheCookieOnly(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	bob := signupUser(t, e, "bob@example.com")
	p := ada.newProject("Ada's")
	q := bob.newProject("Bob's")

	for _, path := range []string{"/users/@me", "/users/@me/projects", "/projects/" + e.Project.ID + "/members"} {
		expectError(t, e.Do("GET", path, e.Project.Secret, nil), 401, "UNAUTHORIZED")
		expectError(t, e.Do("GET", path, "", nil), 401, "UNAUTHORIZED")
	}
	expectError(t, ada.do("GET", "/projects/"+q.ID+"/members", nil), 403, "PROJECT_ACCESS_DENIED")
	expectError(t, ada.do("GET", "/projects/nope/members", nil), 403, "PROJECT_ACCESS_DENIED")
	expectError(t, ada.write("PATCH", "/users/@me/projects/"+q.ID, map[string]any{"name": "mine"}), 403, "PROJECT_ACCESS_DENIED")
	expectStatus(t, ada.write("DELETE", "/users/@me/projects/"+p.ID, nil), 204)
	expectError(t, ada.do("GET", "/projects/"+p.ID+"/members", nil), 403, "PROJECT_ACCESS_DENIED")
	expectError(t, ada.in(p.ID, "GET", "/contacts", nil), 403, "PROJECT_ACCESS_DENIED")
}

func TestCSRF(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	p := ada.newProject("Ada's")

	// A cookie write without X-Project-Id: 400, nothing made.
	expectError(t, ada.do("POST", "/users/@me/projects", map[string]any{"name": "x"}), 400, "BAD_REQUEST")
	expectError(t, ada.do("DELETE", "/users/@me/projects/"+p.ID, nil), 400, "BAD_REQUEST")
	expectError(t, ada.do("POST", "/contacts", map[string]any{"email": "c@example.com"}), 400, "BAD_REQUEST")

	// A cross-origin request, as a browser would send it from another
	// site: refused even with the header, nothing made.
	evil := []string{"Origin", "https://evil.example"}
	expectError(t, ada.in(p.ID, "POST", "/contacts", map[string]any{"email": "c@example.com"}, evil...), 403, "FORBIDDEN")
	expectError(t, ada.do("POST", "/users/@me/projects", map[string]any{"name": "x"}, "X-Project-Id", "1", "Origin", "https://evil.example"), 403, "FORBIDDEN")
	expectError(t, ada.do("PATCH", "/users/@me/projects/"+p.ID, map[string]any{"name": "x"}, "X-Project-Id", "1", "Origin", "null"), 403, "FORBIDDEN")
	expectError(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "ada@example.com", "password": testPassword}, evil...), 403, "FORBIDDEN")
	expectError(t, e.Do("POST", "/auth/signup", "", map[string]any{"email": "eve@example.com", "password": testPassword}, evil...), 403, "FORBIDDEN")
	r := ada.in(p.ID, "GET", "/contacts", nil)
	if n := len(r.JSON()["data"].([]any)); n != 0 {
		t.Errorf("a refused write made a contact: %s", r.Body)
	}
	r = ada.do("GET", "/users/@me/projects", nil)
	if n := arrayLen(t, r); n != 1 {
		t.Errorf("projects %s", r.Body)
	}

	// Our own origin passes; reads need no header; a key needs neither.
	same := []string{"Origin", "http://herald.test"}
	expectStatus(t, ada.in(p.ID, "POST", "/contacts", map[string]any{"email": "c@example.com"}, same...), 201)
	expectStatus(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "ada@example.com", "password": testPassword}, same...), 200)
	expectStatus(t, ada.do("GET", "/users/@me", nil, evil...), 200)
	expectStatus(t, e.Do("POST", "/contacts", e.Project.Secret, map[string]any{"email": "k@example.com"}, evil...), 201)
}
