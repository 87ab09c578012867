package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web"
	"github.com/heraldmail/herald/web/webtest"
)

// accountTarget is an account endpoint that reads a body, called with an
// OWNER's cookie.
type accountTarget struct{ method, path string }

// accountTargets walks the routes table for the /auth/*, /users/@me/**
// and /projects/{id}/** endpoints that read a body. Logout is left out:
// it would end the session the others use.
func accountTargets(t testing.TB, e *webtest.Env) (*browser, []accountTarget) {
	t.Helper()
	owner := signupUser(t, e, "owner@example.com")
	member := signupUser(t, e, "member@example.com")
	p := owner.newProject("Fuzzed")
	owner.addMember(p.ID, member.email, "MEMBER")
	var out []accountTarget
	for _, rt := range e.Server.Config.Handler.(*web.Server).Routes() {
		if rt.Auth != "login" && rt.Auth != "user" && rt.Auth != "project" || rt.Method == "GET" || rt.Method == "DELETE" ||
			rt.Path == "/auth/logout" {
			continue
		}
		path := strings.NewReplacer(":id", p.ID, ":userId", member.id).Replace(rt.Path)
		out = append(out, accountTarget{rt.Method, path})
	}
	if len(out) < 12 {
		t.Fatalf("only %d account routes take a body", len(out))
	}
	return owner, out
}

func (at accountTarget) post(t testing.TB, e *webtest.Env, b *browser, body []byte) {
	t.Helper()
	req, err := http.NewRequest(at.method, e.Server.URL+at.path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "herald_session="+b.cookie)
	req.Header.Set("X-Project-Id", "fuzz")
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s with %q: %d %s", at.method, at.path, body, resp.StatusCode, answer)
	}
	if !json.Valid(answer) {
		t.Fatalf("%s %s with %q: %d with a broken body %q", at.method, at.path, body, resp.StatusCode, answer)
	}
}

// FuzzAccountBodies sends any body to any account endpoint that reads one
// (the first argument picks it), with a session, and checks that the
// answer is never a 5xx.
func FuzzAccountBodies(f *testing.F) {
	e := webtest.New(f, webtest.Options{NoWorkers: true})
	owner, targets := accountTargets(f, e)
	for _, seed := range []string{`{"email":"a@example.com","password":"12345678"}`, `{"name":"x"}`,
		`{"workflows":null,"campaigns":1,"transactional":1e3,"inbound":-1}`, `{"role":"OWNER"}`,
		`{"token":"` + strings.Repeat("a", 64) + `","newPassword":"12345678"}`, `{"currentPassword":1}`} {
		f.Add(byte(0), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, route byte, body []byte) {
		targets[int(route)%len(targets)].post(t, e, owner, body)
	})
}

// TestAccountBodyCorpusNeverGets5xx sends the request-body corpus to every
// account endpoint that reads a body.
func TestAccountBodyCorpusNeverGets5xx(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner, targets := accountTargets(t, e)
	for _, at := range targets {
		for _, body := range readCorpus(t, "testdata/fuzz/FuzzRequestBodies") {
			at.post(t, e, owner, body)
		}
	}
}
