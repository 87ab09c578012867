package web_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/web"
	"github.com/heraldmail/herald/web/webtest"
)

// TestEveryRouteDeclaresItsAccess walks the routes table: every row names
// its access rule (key kinds, session, role), and each rule holds when the
// route is called with the wrong credential. A route added without a rule
// fails here.
func TestEveryRouteDeclaresItsAccess(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := signupUser(t, e, "owner@example.com")
	member := signupUser(t, e, "member@example.com")
	stranger := signupUser(t, e, "stranger@example.com")
	p := owner.newProject("Mine")
	owner.addMember(p.ID, member.email, "MEMBER")
	strangers := stranger.newProject("Theirs")

	routes := e.Server.Config.Handler.(*web.Server).Routes()
	if len(routes) < 90 {
		t.Fatalf("only %d routes", len(routes))
	}
	for _, rt := range routes {
		name := rt.Method + " " + rt.Path
		switch {
		case rt.Auth == "":
			t.Errorf("%s declares no access rule", name)
			continue
		case rt.Auth == "project" && rt.Role == "":
			t.Errorf("%s acts on a project and declares no role", name)
		case rt.Auth != "project" && rt.Role != "":
			t.Errorf("%s declares a role it cannot use", name)
		}
		// The contract's families of paths and their rules.
		switch {
		case strings.HasPrefix(rt.Path, "/auth/") && rt.Auth != "login",
			(strings.HasPrefix(rt.Path, "/users/@me") || strings.HasPrefix(rt.Path, "/projects/")) &&
				rt.Auth != "user" && rt.Auth != "project" && !strings.HasSuffix(rt.Path, "/billing-invoices") &&
				!strings.HasSuffix(rt.Path, "/checkout") && !strings.HasSuffix(rt.Path, "/billing-portal"),
			rt.Path == "/v1/track" && rt.Auth != "public":
			t.Errorf("%s: rule %q is not the contract's", name, rt.Auth)
		}

		path := strings.NewReplacer(":id", p.ID).Replace(rt.Path)
		path = fillParams(path, map[string]string{})
		foreign := strings.NewReplacer(":id", strangers.ID).Replace(rt.Path)
		foreign = fillParams(foreign, map[string]string{})
		var body any
		if rt.Method != "GET" {
			body = map[string]any{}
		}
		switch rt.Auth {
		case "secret":
			expectCode(t, name, e.Do(rt.Method, path, "", body), 401, "MISSING_AUTH")
			expectCode(t, name, e.Do(rt.Method, path, e.Project.Public, body), 401, "INVALID_API_KEY")
			expectCode(t, name, owner.do(rt.Method, path, body), 400, "BAD_REQUEST")
			expectCode(t, name, owner.in(strangers.ID, rt.Method, path, body), 403, "PROJECT_ACCESS_DENIED")
			expectCode(t, name, (&browser{t: t, e: e, cookie: "x"}).in(p.ID, rt.Method, path, body), 401, "UNAUTHORIZED")
		case "public":
			expectCode(t, name, e.Do(rt.Method, path, e.Project.Secret, body), 401, "INVALID_API_KEY")
			expectCode(t, name, owner.in(p.ID, rt.Method, path, body), 401, "MISSING_AUTH")
		case "user", "project":
			expectCode(t, name, e.Do(rt.Method, path, e.Project.Secret, body, "X-Project-Id", p.ID), 401, "UNAUTHORIZED")
		}
		if rt.Auth == "project" {
			expectCode(t, name, owner.write(rt.Method, foreign, body), 403, "PROJECT_ACCESS_DENIED")
			if rt.Role != "MEMBER" {
				expectCode(t, name, member.write(rt.Method, path, body), 403, "FORBIDDEN")
			}
		}
	}
}

func expectCode(t *testing.T, name string, r webtest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Errorf("%s: %d %s, want %d %s", name, r.Status, r.Body, status, code)
	}
}
