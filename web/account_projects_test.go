package web_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

func TestUserProjects(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	first := ada.newProject("  First  ")
	if first.Name != "First" || first.Role != "OWNER" || first.Tracking != "ENABLED" || first.Language != "en" ||
		first.Secret == nil || !strings.HasPrefix(first.Public, "pk_") || first.Disabled || first.DisabledReason != nil ||
		first.CreatedAt == "" || first.UpdatedAt == "" {
		t.Fatalf("created %+v", first)
	}
	r := ada.write("POST", "/users/@me/projects", map[string]any{"name": "Second"})
	var keys map[string]any
	r.Decode(t, &keys)
	for _, k := range []string{"id", "name", "public", "secret", "disabled", "disabledReason", "tracking", "language", "role", "createdAt", "updatedAt"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("project has no %q: %s", k, r.Body)
		}
	}
	e.Clock.Advance(1)
	ada.newProject("Third")
	r = ada.do("GET", "/users/@me/projects", nil)
	expectStatus(t, r, 200)
	var list []projectJSON
	r.Decode(t, &list)
	if len(list) != 3 || list[0].Name != "First" || list[1].Name != "Second" || list[2].Name != "Third" {
		t.Fatalf("not oldest first: %s", r.Body)
	}

	expectField(t, ada.write("POST", "/users/@me/projects", map[string]any{"name": "   "}), "name", "too_small")
	expectField(t, ada.write("POST", "/users/@me/projects", map[string]any{"name": strings.Repeat("n", 101)}), "name", "too_big")
	expectField(t, ada.write("POST", "/users/@me/projects", map[string]any{}), "name", "invalid_type")
	expectStatus(t, ada.write("POST", "/users/@me/projects", map[string]any{"name": strings.Repeat("ñ", 100)}), 201)

	r = ada.write("PATCH", "/users/@me/projects/"+first.ID, map[string]any{"name": "Renamed", "tracking": "MARKETING_ONLY", "language": "pt-BR"})
	expectStatus(t, r, 200)
	var p projectJSON
	r.Decode(t, &p)
	if p.Name != "Renamed" || p.Tracking != "MARKETING_ONLY" || p.Language != "pt-BR" || p.Role != "OWNER" {
		t.Errorf("patched %+v", p)
	}
	r = ada.write("PATCH", "/users/@me/projects/"+first.ID, map[string]any{"tracking": "DISABLED"})
	r.Decode(t, &p)
	if p.Name != "Renamed" || p.Tracking != "DISABLED" || p.Language != "pt-BR" {
		t.Errorf("a partial PATCH changed other fields: %+v", p)
	}
	expectField(t, ada.write("PATCH", "/users/@me/projects/"+first.ID, map[string]any{"tracking": "SOMETIMES"}), "tracking", "invalid_enum_value")
	for _, lang := range []string{"EN", "en-us", "english", "e", ""} {
		expectField(t, ada.write("PATCH", "/users/@me/projects/"+first.ID, map[string]any{"language": lang}), "language", "invalid_string")
	}
	expectField(t, ada.write("PATCH", "/users/@me/projects/"+first.ID, map[string]any{"name": ""}), "name", "too_small")
}

func TestAtMost100ProjectsPerUser(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	for range 100 {
		ada.newProject("p")
	}
	expectField(t, ada.write("POST", "/users/@me/projects", map[string]any{"name": "one too many"}), "name", "too_many")
}

func TestRegenerateKeysStopsTheOldOnesAtOnce(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	p := ada.newProject("Keys")
	// Warm the key cache with both keys.
	expectStatus(t, e.Do("GET", "/contacts", *p.Secret, nil), 200)
	expectStatus(t, e.Do("POST", "/v1/track", p.Public, map[string]any{"event": "e", "email": "a@example.com"}), 200)

	r := ada.write("POST", "/users/@me/projects/"+p.ID+"/regenerate-keys", nil)
	expectStatus(t, r, 200)
	var np projectJSON
	r.Decode(t, &np)
	if np.Public == p.Public || *np.Secret == *p.Secret || np.ID != p.ID || !strings.HasPrefix(*np.Secret, "sk_") {
		t.Fatalf("keys not replaced: %+v", np)
	}
	expectError(t, e.Do("GET", "/contacts", *p.Secret, nil), 401, "INVALID_API_KEY")
	expectError(t, e.Do("POST", "/v1/track", p.Public, map[string]any{"event": "e", "email": "a@example.com"}), 401, "INVALID_API_KEY")
	expectStatus(t, e.Do("GET", "/contacts", *np.Secret, nil), 200)
}

func TestResetAndDeleteProject(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ada := signupUser(t, e, "ada@example.com")
	bob := signupUser(t, e, "bob@example.com")
	p := ada.newProject("Data")
	ada.addMember(p.ID, bob.email, "ADMIN")
	ada.write("PATCH", "/users/@me/projects/"+p.ID, map[string]any{"language": "fr"})
	for _, c := range []string{"a@example.com", "b@example.com"} {
		expectStatus(t, ada.in(p.ID, "POST", "/contacts", map[string]any{"email": c}), 201)
	}
	expectStatus(t, e.Do("POST", "/v1/track", p.Public, map[string]any{"event": "signed-up", "email": "a@example.com"}), 200)
	expectStatus(t, e.Do("GET", "/contacts", *p.Secret, nil), 200)

	// An ADMIN may not reset.
	expectError(t, bob.write("POST", "/users/@me/projects/"+p.ID+"/reset", nil), 403, "FORBIDDEN")
	r := ada.write("POST", "/users/@me/projects/"+p.ID+"/reset", nil)
	expectStatus(t, r, 200)
	var after projectJSON
	r.Decode(t, &after)
	if after.Public != p.Public || *after.Secret != *p.Secret || after.Language != "fr" {
		t.Errorf("reset changed the project: %+v", after)
	}
	r = e.Do("GET", "/contacts", *p.Secret, nil)
	expectStatus(t, r, 200)
	if n := len(r.JSON()["data"].([]any)); n != 0 {
		t.Errorf("contacts survived the reset: %s", r.Body)
	}
	r = e.Do("GET", "/events", *p.Secret, nil)
	if strings.Contains(string(r.Body), "signed-up") {
		t.Errorf("events survived the reset: %s", r.Body)
	}
	r = ada.do("GET", "/projects/"+p.ID+"/members", nil)
	if arrayLen(t, r) != 2 {
		t.Errorf("members lost: %s", r.Body)
	}

	// An ADMIN may not delete; the OWNER may, and the keys stop at once.
	expectError(t, bob.write("DELETE", "/users/@me/projects/"+p.ID, nil), 403, "FORBIDDEN")
	r = ada.write("DELETE", "/users/@me/projects/"+p.ID, nil)
	expectStatus(t, r, 204)
	if len(r.Body) != 0 {
		t.Errorf("204 with a body: %s", r.Body)
	}
	expectError(t, e.Do("GET", "/contacts", *p.Secret, nil), 401, "INVALID_API_KEY")
	expectError(t, e.Do("POST", "/v1/track", p.Public, map[string]any{"event": "e", "email": "a@example.com"}), 401, "INVALID_API_KEY")
	expectError(t, ada.write("DELETE", "/users/@me/projects/"+p.ID, nil), 403, "PROJECT_ACCESS_DENIED")
	if n := arrayLen(t, bob.do("GET", "/users/@me/projects", nil)); n != 0 {
		t.Errorf("bob still sees %d projects", n)
	}
}
