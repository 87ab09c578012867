package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout/smtptest"
)

// TestWorkflowsSurviveKill kills the server (SIGKILL) in the middle of
// 1,000 running executions of TRIGGER → UPDATE_CONTACT → DELAY →
// SEND_EMAIL, starts it again, and checks that every tracked event has its
// execution, every execution completes, and each effect happened once:
// one contact.unsubscribed event and one email per contact.
func TestWorkflowsSurviveKill(t *testing.T) {
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "example.net. 300 IN MX 10 mx.example.net.", "mx.example.net. 300 IN A 127.0.0.1")
	sink := smtptest.Start(t)
	env := []string{"HERALD_DATA_DIR=" + t.TempDir(), "HERALD_DNS_SERVER=" + dns.Addr,
		"HERALD_DELIVERY_RETRY_BASE=1s", "HERALD_HOSTNAME=herald.test", "HERALD_RATE_LIMIT=0"}
	var project struct{ Public, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Flows", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	key := project.Secret
	// No mail server answers before the kill, so no email can have been
	// accepted and left unrecorded.
	s := startServer(t, bin, append(env, "HERALD_SMTP_PORT="+closedPort(t)))
	publishAndVerify(t, s, dns, key, "herald.test")
	tpl := s.call(t, "POST", "/templates", key, map[string]any{"name": "Hi", "subject": "Hi", "body": "<p>Hi {{email}}</p>",
		"from": "hi@herald.test", "type": "TRANSACTIONAL"})
	if tpl.status != 201 {
		t.Fatalf("template: %d %s", tpl.status, tpl.raw)
	}
	w := s.call(t, "POST", "/workflows", key, map[string]any{"name": "Onboard", "eventName": "signup", "enabled": true})
	if w.status != 201 {
		t.Fatalf("workflow: %d %s", w.status, w.raw)
	}
	wf := w.body["id"].(string)
	for _, step := range []map[string]any{
		{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"onboarded": true}, "subscriptionAction": "unsubscribe"}},
		{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "seconds"}},
		{"type": "SEND_EMAIL", "config": map[string]any{"templateId": tpl.body["id"]}},
	} {
		if r := s.call(t, "POST", "/workflows/"+wf+"/steps", key, step); r.status != 201 {
			t.Fatalf("step: %d %s", r.status, r.raw)
		}
	}
	const n = 1000
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r := s.call(t, "POST", "/v1/track", project.Public, map[string]any{"email": fmt.Sprintf("c%04d@example.net", i), "event": "signup"})
				if r.status != 200 {
					t.Errorf("track: %d %s", r.status, r.raw)
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	count := func(s *server, status string) int {
		r := s.call(t, "GET", "/workflows/"+wf+"/executions?limit=1&status="+status, key, nil)
		total, _ := r.body["total"].(float64)
		return int(total)
	}
	deadline := time.Now().Add(30 * time.Second)
	for count(s, "COMPLETED") == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	done := count(s, "COMPLETED")
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	t.Logf("killed with %d of %d executions completed", done, n)

	s = startServer(t, bin, append(env, "HERALD_SMTP_PORT="+sink.PortString()))
	deadline = time.Now().Add(90 * time.Second)
	for count(s, "COMPLETED") < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := count(s, ""); got != n {
		t.Fatalf("%d executions, want %d", got, n)
	}
	if got := count(s, "COMPLETED"); got != n {
		t.Fatalf("%d executions completed, want %d", got, n)
	}
	sink.Wait(n, 60*time.Second)
	// A duplicate could only come from a delivery attempt still to run. An
	// email.delivery event is written with its job's end, so once there is
	// one per execution no attempt is left queued; stopping the server then
	// waits for any attempt still in flight. What the sink holds after that
	// is all it will ever get.
	total := func(name string) int {
		ev := s.call(t, "GET", "/events?name="+name+"&limit=1", key, nil)
		n, _ := ev.body["total"].(float64)
		return int(n)
	}
	deadline = time.Now().Add(60 * time.Second)
	for total("email.delivery") < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := total("email.delivery"); got != n {
		t.Fatalf("%d email.delivery events, want %d", got, n)
	}
	if got := total("contact.unsubscribed"); got != n {
		t.Errorf("%d contact.unsubscribed events, want %d", got, n)
	}
	s.stop(t)
	seen := map[string]int{}
	for _, m := range sink.Messages() {
		for _, to := range m.To {
			seen[to]++
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct recipients, want %d", len(seen), n)
	}
	for to, c := range seen {
		if c != 1 {
			t.Errorf("%s received %d copies", to, c)
		}
	}

	// The operator's view.
	var ws []map[string]any
	if err := json.Unmarshal([]byte(run(t, bin, env, "workflow", "list", "--json")), &ws); err != nil || len(ws) != 1 || ws[0]["id"] != wf {
		t.Fatalf("workflow list: %v %v", err, ws)
	}
	if out := run(t, bin, env, "workflow", "show", wf); !strings.Contains(out, "SEND_EMAIL") || !strings.Contains(out, "Onboard") {
		t.Errorf("workflow show: %s", out)
	}
	var page struct {
		Data  []map[string]any `json:"data"`
		Total int              `json:"total"`
	}
	if err := json.Unmarshal([]byte(run(t, bin, env, "workflow", "executions", wf, "--status", "COMPLETED", "--limit", "5", "--json")), &page); err != nil ||
		page.Total != n || len(page.Data) != 5 {
		t.Errorf("workflow executions: %v %d %d", err, page.Total, len(page.Data))
	}
}
