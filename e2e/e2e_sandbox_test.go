package e2e

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's first steps, with the binary: serve --sandbox, the first
// user (the administrator), a project the user owns, a domain verified at
// once, a send, and the captured message, DKIM-signed, in the user's
// sandbox; the default sign-up mode then refuses a stranger.
func TestSandboxFirstSteps(t *testing.T) {
	bin := buildHerald(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	env := []string{"HERALD_DATA_DIR=" + dataDir}
	s := startServer(t, bin, env, "--sandbox")

	out, stderr, code := runIn(t, bin, env, "correct horse battery\n", "user", "create", "--email", "you@example.com", "--password-stdin", "--json")
	if code != 0 || !strings.Contains(out, `"admin": true`) {
		t.Fatalf("user create: %d %s %s", code, out, stderr)
	}
	var project struct{ ID, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "My app", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	// The README gives the project with `project create --owner`; the
	// same membership, in two commands.
	run(t, bin, env, "project", "add-member", "--project", project.ID, "--email", "you@example.com", "--role", "OWNER")

	if r := s.call(t, "POST", "/domains", project.Secret, map[string]any{"domain": "example.com"}); r.status != 201 || r.body["verified"] != true {
		t.Fatalf("domain: %d %s", r.status, r.raw)
	}
	if r := s.call(t, "POST", "/v1/send", project.Secret, map[string]any{"to": "ada@example.net", "from": "hello@example.com",
		"subject": "Hello from Herald", "body": `<p>Hello Ada, <a href="https://example.org/">read this</a>.</p>`}); r.status != 200 {
		t.Fatalf("send: %d %s", r.status, r.raw)
	}

	cookie, status := login(t, s, "you@example.com", "correct horse battery")
	if status != 200 {
		t.Fatalf("login: %d", status)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("GET", s.url+"/sandbox/messages", nil)
		req.Header.Set("Cookie", "herald_session="+cookie)
		req.Header.Set("X-Project-Id", project.ID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data []struct{ Subject, DKIM string } `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if len(page.Data) == 1 && page.Data[0].Subject == "Hello from Herald" && page.Data[0].DKIM == "pass" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sandbox: %d %+v", resp.StatusCode, page)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := s.call(t, "POST", "/auth/signup", "", map[string]any{"email": "stranger@example.com", "password": "12345678"}); r.status != 403 {
		t.Fatalf("a stranger's sign-up: %d %s", r.status, r.raw)
	}
	if len(s.logLines("sandbox: no email leaves this machine; every one is captured at http://localhost:8080/app/sandbox, and sender domains are verified without DNS")) != 1 {
		t.Error("no sandbox line in the log")
	}
	s.stop(t)
}
