package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn runs a command with standard input and returns its output and
// exit code.
func runIn(t *testing.T, bin string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// login logs in on a running server and returns the session cookie.
func login(t *testing.T, s *server, email, pw string) (string, int) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"email": email, "password": pw})
	resp, err := http.Post(s.url+"/auth/login", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	for _, c := range resp.Cookies() {
		if c.Name == "herald_session" {
			return c.Value, resp.StatusCode
		}
	}
	return "", resp.StatusCode
}

func withCookie(t *testing.T, s *server, method, path, cookie string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, nil)
	req.Header.Set("Cookie", "herald_session="+cookie)
	req.Header.Set("X-Project-Id", "cli")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitStatus polls until a key call answers want, for at most 5 seconds.
func waitStatus(t *testing.T, s *server, key string, want int) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		r := s.call(t, "GET", "/contacts", key, nil)
		if r.status == want {
			return time.Since(start)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("still %d after 5 s, want %d: %s", r.status, want, r.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAccountCLIBesideARunningServer drives the account commands on the
// data directory of a running server, as an operator would.
func TestAccountCLIBesideARunningServer(t *testing.T) {
	bin := buildHerald(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	env := []string{"HERALD_DATA_DIR=" + dataDir, "HERALD_DISABLE_SIGNUPS=true"}
	s := startServer(t, bin, env)

	// user create: verified, with signups off; the line end of stdin is
	// not part of the password.
	out, stderr, code := runIn(t, bin, env, "s3cret password\r\n", "user", "create", "--email", " Op@Example.com", "--password-stdin", "--json")
	if code != 0 {
		t.Fatalf("user create: %d %s", code, stderr)
	}
	var u map[string]any
	if err := json.Unmarshal([]byte(out), &u); err != nil || u["email"] != "op@example.com" || u["emailVerified"] != true ||
		u["id"] == nil || u["createdAt"] == nil || u["admin"] != true || len(u) != 5 {
		t.Fatalf("user create --json: %s %v", out, err)
	}
	if _, stderr, code = runIn(t, bin, env, "", "user", "create", "--email", "op@example.com", "--password", "another one"); code != 1 ||
		!strings.Contains(stderr, "already exists") {
		t.Errorf("duplicate user: exit %d %s", code, stderr)
	}
	if _, _, code = runIn(t, bin, env, "", "user", "create", "--email", "x@example.com", "--password", "short"); code != 1 {
		t.Errorf("short password: exit %d", code)
	}
	if _, _, code = runIn(t, bin, env, "", "user", "create", "--email", "x@example.com"); code != 1 {
		t.Errorf("no password: exit %d", code)
	}
	cookie, status := login(t, s, "op@example.com", "s3cret password")
	if status != 200 || cookie == "" {
		t.Fatalf("login: %d", status)
	}

	// project add-member: the project, made by the CLI, shows in the
	// user's list with the role.
	var project struct{ ID, Public, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Ops", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	run(t, bin, env, "project", "add-member", "--project", project.ID, "--email", "op@example.com", "--role", "OWNER")
	if st, body := withCookie(t, s, "GET", "/users/@me/projects", cookie); st != 200 || !strings.Contains(body, `"role":"OWNER"`) {
		t.Fatalf("projects: %d %s", st, body)
	}
	if _, _, code = runIn(t, bin, env, "", "project", "add-member", "--project", project.ID, "--email", "nobody@example.com", "--role", "ADMIN"); code != 1 {
		t.Errorf("add-member of no user: exit %d", code)
	}

	// regenerate-keys from another process: the server stops the old
	// key within 5 seconds (its cache trusts a key for 2).
	waitStatus(t, s, project.Secret, 200)
	var regenerated struct{ Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "regenerate-keys", project.ID, "--json")), &regenerated); err != nil {
		t.Fatal(err)
	}
	took := waitStatus(t, s, project.Secret, 401)
	t.Logf("old key refused %v after regenerate-keys", took)
	waitStatus(t, s, regenerated.Secret, 200)

	// delete: refused without --yes; with it, the keys stop.
	if _, stderr, code = runIn(t, bin, env, "", "project", "delete", project.ID); code != 1 || !strings.Contains(stderr, "--yes") {
		t.Errorf("delete without --yes: exit %d %s", code, stderr)
	}
	waitStatus(t, s, regenerated.Secret, 200)
	run(t, bin, env, "project", "delete", project.ID, "--yes")
	waitStatus(t, s, regenerated.Secret, 401)

	// reset-password ends the sessions.
	run(t, bin, env, "user", "reset-password", "--email", "op@example.com", "--password", "a new password")
	if st, _ := withCookie(t, s, "GET", "/users/@me", cookie); st != 401 {
		t.Errorf("session after reset-password: %d", st)
	}
	if _, st := login(t, s, "op@example.com", "a new password"); st != 200 {
		t.Errorf("login with the new password: %d", st)
	}
	if list := run(t, bin, env, "user", "list"); !strings.Contains(list, "op@example.com") {
		t.Errorf("user list: %s", list)
	}
	run(t, bin, env, "user", "delete", "--email", "op@example.com")
	if list := run(t, bin, env, "user", "list", "--json"); strings.TrimSpace(list) != "[]" {
		t.Errorf("user list after delete: %s", list)
	}
	if _, st := login(t, s, "op@example.com", "a new password"); st != 401 {
		t.Errorf("login of a deleted user: %d", st)
	}
	s.stop(t)
}
