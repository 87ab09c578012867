package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web"
	"github.com/heraldmail/herald/web/webtest"
)

// bodyTarget is an endpoint that takes a body, with a path that names
// existing resources, so that a body gets past the lookups to the decoding
// and the rules.
type bodyTarget struct {
	method, path string
	key          string
}

// bodyTargets walks the routes table: every POST, PUT and PATCH, and the
// one DELETE that reads a body. Path parameters name fixtures made here.
func bodyTargets(t testing.TB, e *webtest.Env) []bodyTarget {
	t.Helper()
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	contact := createContact(t, e, map[string]any{"email": "fixture@example.net", "data": map[string]any{"plan": "pro"}})
	dynamic := createSegment(t, e, map[string]any{"name": "Dynamic", "condition": cond(filter("email", "contains", "@"))})
	static := createSegment(t, e, map[string]any{"name": "Static", "type": "STATIC"})
	tpl := e.Secret("POST", "/templates", map[string]any{"name": "T", "subject": "s", "body": "b", "from": "news@herald.test"}).JSON()
	campaign := createCampaign(t, e, campaignBody(nil))
	domains := e.Secret("GET", "/domains/project/"+e.Project.ID, nil)
	var doms []map[string]any
	domains.Decode(t, &doms)
	params := map[string]string{
		"/contacts/:id": contact.ID, "/templates/:id": tpl["id"].(string), "/campaigns/:id": campaign.ID,
		"/domains/:id": doms[0]["id"].(string), "/segments/:id": dynamic.ID, "/segments/:id/members": static.ID,
		":contactId": contact.ID, ":projectId": e.Project.ID, ":field": "plan", ":eventName": "e",
	}
	wf := createWorkflow(t, e, map[string]any{"name": "Fixture", "eventName": "e", "enabled": true})
	step := addStep(t, e, wf.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "days"}})
	params["/workflows/:id"], params[":stepId"] = wf.ID, step.ID
	var out []bodyTarget
	for _, rt := range e.Server.Config.Handler.(*web.Server).Routes() {
		takesBody := rt.Method == "POST" || rt.Method == "PUT" || rt.Method == "PATCH" ||
			(rt.Method == "DELETE" && strings.HasSuffix(rt.Path, "/members"))
		if !takesBody {
			continue
		}
		out = append(out, bodyTarget{method: rt.Method, path: fillParams(rt.Path, params),
			key: map[string]string{"public": e.Project.Public, "secret": e.Project.Secret}[rt.Auth]})
	}
	if len(out) < 25 {
		t.Fatalf("only %d routes take a body", len(out))
	}
	return out
}

// fillParams replaces each :param of a path by a fixture: the one named
// for the path's prefix up to it, else the one named for the parameter,
// else "x".
func fillParams(path string, params map[string]string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ":") {
			continue
		}
		v, ok := params[strings.Join(parts[:i+1], "/")]
		if full, okFull := params[path]; okFull && i == len(parts)-2 {
			v, ok = full, true
		}
		if !ok {
			if v, ok = params[p]; !ok {
				v = "x"
			}
		}
		parts[i] = v
	}
	return strings.Join(parts, "/")
}

// post sends a body and fails the test on a 5xx.
func (bt bodyTarget) post(t testing.TB, e *webtest.Env, body []byte) {
	t.Helper()
	// Not e.Do: inside a fuzz target only t may be used, not the F that
	// made the Env.
	req, err := http.NewRequest(bt.method, e.Server.URL+bt.path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bt.key != "" {
		req.Header.Set("Authorization", "Bearer "+bt.key)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %s with %q: reading the answer: %v", bt.method, bt.path, body, err)
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s with %q: %d %s", bt.method, bt.path, body, resp.StatusCode, answer)
	}
	if resp.StatusCode != http.StatusNoContent && !json.Valid(answer) && !bytes.HasPrefix(answer, []byte("<!doctype html>")) {
		t.Fatalf("%s %s with %q: %d with a broken body %q", bt.method, bt.path, body, resp.StatusCode, answer)
	}
}

// FuzzRequestBodies sends any body to any endpoint that takes one (the
// first argument picks it) and checks that the answer is never a 5xx.
// Seeds: testdata/fuzz/FuzzRequestBodies, which TestBodyCorpusNeverGets5xx
// also sends to every endpoint.
func FuzzRequestBodies(f *testing.F) {
	e := webtest.New(f, webtest.Options{NoWorkers: true})
	targets := bodyTargets(f, e)
	f.Fuzz(func(t *testing.T, route byte, body []byte) {
		targets[int(route)%len(targets)].post(t, e, body)
	})
}

// TestBodyCorpusNeverGets5xx sends every body of the fuzz corpus to every
// endpoint that takes a body.
func TestBodyCorpusNeverGets5xx(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	targets := bodyTargets(t, e)
	bodies := readCorpus(t, "testdata/fuzz/FuzzRequestBodies")
	for _, bt := range targets {
		for _, body := range bodies {
			bt.post(t, e, body)
		}
	}
}

// readCorpus returns the []byte argument of each file of a Go fuzz corpus.
func readCorpus(t *testing.T, dir string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if q, ok := bytes.CutPrefix(line, []byte("[]byte(")); ok {
				s, err := strconv.Unquote(string(bytes.TrimSuffix(q, []byte(")"))))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, []byte(s))
			}
		}
	}
	return out
}
