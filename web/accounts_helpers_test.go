package web_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// browser is a dashboard user: a session cookie, sent with every request.
type browser struct {
	t      testing.TB
	e      *webtest.Env
	cookie string // the session token
	id     string
	email  string
}

const testPassword = "correct horse battery"

// sessionFrom returns the herald_session value a response sets.
func sessionFrom(t testing.TB, r webtest.Response) (value, raw string) {
	t.Helper()
	for _, c := range r.Header.Values("Set-Cookie") {
		if v, ok := strings.CutPrefix(c, "herald_session="); ok {
			value, _, _ = strings.Cut(v, ";")
			return value, c
		}
	}
	t.Fatalf("no herald_session cookie in %v (%d %s)", r.Header.Values("Set-Cookie"), r.Status, r.Body)
	return "", ""
}

// signupUser creates a user through the API and returns their browser.
func signupUser(t testing.TB, e *webtest.Env, email string) *browser {
	t.Helper()
	r := e.Do("POST", "/auth/signup", "", map[string]any{"email": email, "password": testPassword})
	expectStatus(t, r, 200)
	var body struct {
		Data struct{ ID, Email string }
	}
	r.Decode(t, &body)
	v, _ := sessionFrom(t, r)
	return &browser{t: t, e: e, cookie: v, id: body.Data.ID, email: body.Data.Email}
}

// do sends a request with the cookie; headers are name/value pairs.
func (b *browser) do(method, path string, body any, headers ...string) webtest.Response {
	b.t.Helper()
	return b.e.Do(method, path, "", body, append([]string{"Cookie", "herald_session=" + b.cookie}, headers...)...)
}

// in sends a request on a project's resources (X-Project-Id).
func (b *browser) in(projectID, method, path string, body any, headers ...string) webtest.Response {
	b.t.Helper()
	return b.do(method, path, body, append([]string{"X-Project-Id", projectID}, headers...)...)
}

// write sends an account write with the CSRF header.
func (b *browser) write(method, path string, body any) webtest.Response {
	b.t.Helper()
	return b.do(method, path, body, "X-Project-Id", "dashboard")
}

type projectJSON struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Public         string  `json:"public"`
	Secret         *string `json:"secret"`
	Disabled       bool    `json:"disabled"`
	DisabledReason *string `json:"disabledReason"`
	Tracking       string  `json:"tracking"`
	Language       string  `json:"language"`
	Role           string  `json:"role"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// newProject creates a project owned by the browser's user.
func (b *browser) newProject(name string) projectJSON {
	b.t.Helper()
	r := b.write("POST", "/users/@me/projects", map[string]any{"name": name})
	expectStatus(b.t, r, 201)
	var p projectJSON
	r.Decode(b.t, &p)
	return p
}

type memberJSON struct {
	UserID    string `json:"userId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

// addMember adds a user to a project with a role.
func (b *browser) addMember(projectID, email, role string) memberJSON {
	b.t.Helper()
	body := map[string]any{"email": email}
	if role != "" {
		body["role"] = role
	}
	r := b.write("POST", "/projects/"+projectID+"/members", body)
	expectStatus(b.t, r, 201)
	var m memberJSON
	r.Decode(b.t, &m)
	return m
}

// arrayLen is the length of a bare JSON array body.
func arrayLen(t testing.TB, r webtest.Response) int {
	t.Helper()
	var a []any
	r.Decode(t, &a)
	return len(a)
}
