package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver/dnstest"
)

// The end-to-end test builds the real binary, runs its commands on a temp
// data directory and drives a running `herald serve` over HTTP, as an
// operator and an integrator would.

func buildHerald(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "herald")
	cmd := exec.Command("go", "build", "-o", bin, "-ldflags", "-X github.com/heraldmail/herald/cli.version=9.9.9-test", "github.com/heraldmail/herald")
	cmd.Dir = ".." // the module root: the test runs in e2e/
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// run runs a one-shot command and returns its standard output.
func run(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"HERALD_CONFIG=/dev/null"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("herald %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// server is a running `herald serve`.
type server struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	logs []map[string]any
	done chan struct{}
}

func startServer(t *testing.T, bin string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), append([]string{"HERALD_LISTEN=127.0.0.1:0", "HERALD_LOG_FORMAT=json", "HERALD_CONFIG=/dev/null"}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				t.Errorf("log line is not JSON: %s", sc.Text())
				continue
			}
			s.mu.Lock()
			s.logs = append(s.logs, line)
			s.mu.Unlock()
			if line["msg"] == "herald listening" {
				addr <- line["addr"].(string)
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-time.After(20 * time.Second):
		t.Fatal("herald serve did not start")
	}
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { <-s.done; exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("herald serve exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("herald serve did not stop on SIGTERM")
	}
}

func (s *server) logLines(msg string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range s.logs {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (s *server) call(t *testing.T, method, path, key string, body any) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return reply{resp.StatusCode, resp.Header, m, string(raw)}
}

func TestEndToEnd(t *testing.T) {
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "shop.example. 300 IN MX 10 mx.shop.example.", "shop.example. 300 IN A 192.0.2.1")
	dataDir := filepath.Join(t.TempDir(), "data") // does not exist yet
	env := []string{"HERALD_DATA_DIR=" + dataDir, "HERALD_DNS_SERVER=" + dns.Addr}

	if v := run(t, bin, nil, "version"); !strings.HasPrefix(v, "herald 9.9.9-test (commit ") || !strings.Contains(v, "go1.") {
		t.Fatalf("version: %q", v)
	}
	// A bad setting stops the real binary with exit code 2 and one line.
	bad := exec.Command(bin, "project", "list")
	bad.Env = append(os.Environ(), "HERALD_CONFIG=/dev/null", "HERALD_SMTP_PORT=0", "HERALD_DATA_DIR="+dataDir)
	if out, err := bad.CombinedOutput(); bad.ProcessState.ExitCode() != 2 ||
		strings.TrimSpace(string(out)) != `herald: HERALD_SMTP_PORT="0" is not allowed: want a port number, 1..65535` {
		t.Fatalf("HERALD_SMTP_PORT=0: %v (exit %d)\n%s", err, bad.ProcessState.ExitCode(), out)
	}
	help := run(t, bin, nil, "serve", "--help")
	for _, name := range []string{"HERALD_LISTEN", "HERALD_DATA_DIR", "HERALD_BASE_URL", "HERALD_DNS_SERVER", "HERALD_RATE_LIMIT",
		"HERALD_IDEMPOTENCY_TTL", "HERALD_LOG_LEVEL", "HERALD_LOG_FORMAT", `default ":8080"`, "default 1000", "default 24h0m0s"} {
		if !strings.Contains(help, name) {
			t.Errorf("serve --help does not mention %s", name)
		}
	}
	// A command that only reads refuses a data directory that is missing.
	status := exec.Command(bin, "migrate", "status")
	status.Env = append(os.Environ(), append([]string{"HERALD_CONFIG=/dev/null"}, env...)...)
	if out, err := status.CombinedOutput(); err == nil || !strings.Contains(string(out), "does not exist") {
		t.Fatalf("migrate status on a missing data dir: %v\n%s", err, out)
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if st := run(t, bin, env, "migrate", "status"); !strings.Contains(st, "pending") {
		t.Fatalf("fresh migrate status:\n%s", st)
	}
	if up := run(t, bin, env, "migrate", "up"); !strings.Contains(up, "applied") {
		t.Fatalf("migrate up: %s", up)
	}
	if st := run(t, bin, env, "migrate", "status"); strings.Contains(st, "pending") {
		t.Fatalf("migrate status after up:\n%s", st)
	}

	var project struct{ ID, Name, Public, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "E2E", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	if project.ID == "" || project.Name != "E2E" || !strings.HasPrefix(project.Public, "pk_") || !strings.HasPrefix(project.Secret, "sk_") {
		t.Fatalf("project %+v", project)
	}

	// The flag wins over the environment.
	s := startServer(t, bin, append(env, "HERALD_RATE_LIMIT=1"), "--rate-limit", "500")
	driveAPI(t, s, project.Public, project.Secret)

	// The CLI works beside the running server, on the same data directory.
	var listed []struct{ ID, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "list", "--json")), &listed); err != nil || len(listed) != 1 || listed[0].ID != project.ID {
		t.Fatalf("project list: %+v %v", listed, err)
	}
	second := run(t, bin, env, "project", "create", "--name", "Second")
	if !strings.Contains(second, "Second") || !strings.Contains(second, "sk_") {
		t.Fatalf("project create: %s", second)
	}
	// The default base URL is http://localhost: a warning, once, in the
	// log and in GET /config.
	if w, _ := s.call(t, "GET", "/config", "", nil).body["warnings"].([]any); len(w) == 0 ||
		!strings.Contains(w[0].(string), "HERALD_BASE_URL") {
		t.Fatalf("/config warnings %v", w)
	}
	s.stop(t)
	if len(s.logLines("stopped")) != 1 {
		t.Fatal("no clean stop in the logs")
	}
	s.mu.Lock()
	warned := 0
	for _, l := range s.logs {
		if msg, _ := l["msg"].(string); l["level"] == "WARN" && strings.Contains(msg, "HERALD_BASE_URL") && strings.Contains(msg, "not https") {
			warned++
		}
	}
	s.mu.Unlock()
	if warned != 1 {
		t.Fatalf("%d start-up warnings about HERALD_BASE_URL, want 1", warned)
	}
	for _, l := range s.logLines("request") {
		if id, _ := l["request_id"].(string); !strings.HasPrefix(id, "req_") {
			t.Fatalf("request log line without request id: %v", l)
		}
	}

	// A restart finds everything, including the project created beside it;
	// without a flag, the environment sets the option.
	s = startServer(t, bin, append(env, "HERALD_RATE_LIMIT=7"))
	r := s.call(t, "GET", "/contacts", project.Secret, nil)
	if r.status != 200 || r.body["total"] != float64(1) || r.header.Get("RateLimit-Limit") != "7" {
		t.Fatalf("after restart: %d %v %s", r.status, r.header, r.raw)
	}
	s.stop(t)
}

func driveAPI(t *testing.T, s *server, public, secret string) {
	t.Helper()
	if r := s.call(t, "GET", "/config", "", nil); r.status != 200 {
		t.Fatalf("config: %d %s", r.status, r.raw)
	}
	r := s.call(t, "POST", "/v1/track", public, map[string]any{"email": "Ada@Shop.example", "event": "signed-up", "data": map[string]any{"plan": "pro"}})
	if r.status != 200 || r.body["success"] != true || r.header.Get("RateLimit-Limit") != "500" {
		t.Fatalf("track: %d %v %s", r.status, r.header, r.raw)
	}
	if r := s.call(t, "POST", "/v1/track", secret, map[string]any{"email": "a@shop.example", "event": "x"}); r.status != 401 {
		t.Fatalf("secret key on track: %d", r.status)
	}
	r = s.call(t, "GET", "/contacts", secret, nil)
	data, _ := r.body["data"].([]any)
	if r.status != 200 || len(data) != 1 || data[0].(map[string]any)["email"] != "ada@shop.example" {
		t.Fatalf("contacts: %d %s", r.status, r.raw)
	}
	r = s.call(t, "POST", "/v1/verify", secret, map[string]any{"email": "ada@shop.example"})
	if v, _ := r.body["data"].(map[string]any); r.status != 200 || v["valid"] != true || v["hasMxRecords"] != true {
		t.Fatalf("verify through HERALD_DNS_SERVER: %d %s", r.status, r.raw)
	}
	r = s.call(t, "POST", "/contacts/bulk-unsubscribe", secret, map[string]any{"contactIds": []string{data[0].(map[string]any)["id"].(string)}})
	if r.status != 202 {
		t.Fatalf("bulk: %d %s", r.status, r.raw)
	}
	jobPath := "/contacts/bulk/" + r.body["jobId"].(string)
	deadline := time.Now().Add(10 * time.Second)
	for r = s.call(t, "GET", jobPath, secret, nil); r.body["state"] != "completed"; r = s.call(t, "GET", jobPath, secret, nil) {
		if time.Now().After(deadline) {
			t.Fatalf("bulk job: %s", r.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := s.call(t, "GET", "/nope", secret, nil); r.status != 404 || r.header.Get("X-Request-Id") == "" {
		t.Fatalf("unknown route: %d %s", r.status, r.raw)
	}
}
