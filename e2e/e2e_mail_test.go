package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout/smtptest"
)

// TestQueuedMailSurvivesRestart sends while every MX is unreachable, stops
// the server with the email queued for retry, starts it again with the mail
// server up, and checks the email arrives exactly once, DKIM-signed.
func TestQueuedMailSurvivesRestart(t *testing.T) {
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "example.net. 300 IN MX 10 mx.example.net.", "mx.example.net. 300 IN A 127.0.0.1")
	sink := smtptest.Start(t)
	dataDir := t.TempDir()
	env := []string{"HERALD_DATA_DIR=" + dataDir, "HERALD_DNS_SERVER=" + dns.Addr,
		"HERALD_DELIVERY_RETRY_BASE=1s", "HERALD_HOSTNAME=herald.test"}

	var project struct{ Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Mail", "--json")), &project); err != nil {
		t.Fatal(err)
	}

	s := startServer(t, bin, append(env, "HERALD_SMTP_PORT="+closedPort(t)))
	publishAndVerify(t, s, dns, project.Secret, "herald.test")
	r := s.call(t, "POST", "/v1/send", project.Secret, map[string]any{
		"to": "ada@example.net", "from": "hello@herald.test", "subject": "Queued", "body": "<p>Hi</p>"})
	if r.status != 200 {
		t.Fatalf("send: %d %s", r.status, r.raw)
	}
	waitForLog(t, s, "delivery attempt")
	s.stop(t)
	if n := len(sink.Messages()); n != 0 {
		t.Fatalf("%d messages arrived while the MX was down", n)
	}

	s = startServer(t, bin, append(env, "HERALD_SMTP_PORT="+sink.PortString()))
	sink.Wait(1, 30*time.Second)
	waitDeliveriesSettled(t, s) // no attempt left that could send a duplicate
	got := sink.Messages()
	if len(got) != 1 {
		t.Fatalf("received %d messages, want exactly 1", len(got))
	}
	if !strings.Contains(string(got[0].Data), "DKIM-Signature:") {
		t.Error("message is not signed")
	}
	s.stop(t)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return fmt.Sprint(port)
}

// publishAndVerify adds a sending domain, publishes its DKIM record and
// verifies it through the running server.
func publishAndVerify(t *testing.T, s *server, dns *dnstest.Server, key, domain string) {
	t.Helper()
	r := s.call(t, "POST", "/domains", key, map[string]any{"domain": domain})
	if r.status != 201 {
		t.Fatalf("POST /domains: %d %s", r.status, r.raw)
	}
	for _, rec := range r.body["records"].([]any) {
		m := rec.(map[string]any)
		name, value := m["name"].(string), m["value"].(string)
		if m["type"] == "TXT" && strings.Contains(name, "._domainkey.") {
			var parts []string
			for len(value) > 255 {
				parts, value = append(parts, `"`+value[:255]+`"`), value[255:]
			}
			parts = append(parts, `"`+value+`"`)
			dns.Add(t, strings.TrimSuffix(name, ".")+". 300 IN TXT "+strings.Join(parts, " "))
		}
	}
	if v := s.call(t, "GET", "/domains/"+r.body["id"].(string)+"/verify", key, nil); v.body["verified"] != true {
		t.Fatalf("not verified: %s", v.raw)
	}
}

func waitForLog(t *testing.T, s *server, msg string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(s.logLines(msg)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no %q log line", msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCampaignResumesAfterKill kills the server in the middle of a
// campaign's fan-out (while no mail server answers, so nothing can have
// been accepted and left unrecorded), starts it again, and checks every
// subscribed contact receives the campaign exactly once.
func TestCampaignResumesAfterKill(t *testing.T) {
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "example.net. 300 IN MX 10 mx.example.net.", "mx.example.net. 300 IN A 127.0.0.1")
	sink := smtptest.Start(t)
	env := []string{"HERALD_DATA_DIR=" + t.TempDir(), "HERALD_DNS_SERVER=" + dns.Addr,
		"HERALD_DELIVERY_RETRY_BASE=1s", "HERALD_HOSTNAME=herald.test", "HERALD_RATE_LIMIT=0"}
	var project struct{ Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Mail", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	key := project.Secret
	s := startServer(t, bin, append(env, "HERALD_SMTP_PORT="+closedPort(t)))
	publishAndVerify(t, s, dns, key, "herald.test")
	const n = 700
	for i := 0; i < n; i++ {
		if r := s.call(t, "POST", "/contacts", key, map[string]any{"email": fmt.Sprintf("c%03d@example.net", i)}); r.status != 201 {
			t.Fatalf("contact: %d %s", r.status, r.raw)
		}
	}
	c := s.call(t, "POST", "/campaigns", key, map[string]any{"name": "Launch", "subject": "Launch",
		"body": "<p>Hi {{email}}</p>", "from": "news@herald.test", "audienceType": "ALL"})
	if c.status != 201 {
		t.Fatalf("campaign: %d %s", c.status, c.raw)
	}
	id := c.body["data"].(map[string]any)["id"].(string)
	if r := s.call(t, "POST", "/campaigns/"+id+"/send", key, nil); r.status != 200 {
		t.Fatalf("send: %d %s", r.status, r.raw)
	}
	waitForLog(t, s, "delivery attempt") // the fan-out has committed a batch
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()

	s = startServer(t, bin, append(env, "HERALD_SMTP_PORT="+sink.PortString()))
	sink.Wait(n, 60*time.Second)
	// Once the fan-out is done and no delivery is queued or running, no
	// attempt is left that could send a duplicate.
	waitCampaignSent(t, s, key, id)
	waitDeliveriesSettled(t, s)
	seen := map[string]int{}
	for _, m := range sink.Messages() {
		for _, to := range m.To {
			seen[to]++
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct recipients, want %d", len(seen), n)
	}
	for to, count := range seen {
		if count != 1 {
			t.Errorf("%s received %d copies", to, count)
		}
	}
	s.stop(t)
}

// TestOneServerPerDataDir: a second server on the same data directory
// refuses to start, since the job queue assumes one server.
func TestOneServerPerDataDir(t *testing.T) {
	bin := buildHerald(t)
	env := []string{"HERALD_DATA_DIR=" + t.TempDir()}
	s := startServer(t, bin, env)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append(env, "HERALD_LISTEN=127.0.0.1:0", "HERALD_CONFIG=/dev/null")...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another herald serve") {
		t.Fatalf("second server: %v\n%s", err, out)
	}
	s.stop(t)
}
