package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout/smtptest"
)

// plunkScript drives the official Plunk Node client (@plunk/node) against
// Herald, as an integrator migrating from Plunk would: the secret key
// sends, the public key tracks. It prints each call's result as JSON.
const plunkScript = `
const Plunk = require("@plunk/node").default;
const [base, sk, pk] = process.argv.slice(2);
(async () => {
  const out = {};
  const mail = new Plunk(sk, { baseUrl: base + "/v1/" });
  out.send = await mail.emails.send({ to: "ada@example.net", from: "hello@herald.test",
    subject: "Welcome", body: "<p>Hello from the Node client</p>", subscribed: true });
  out.track = await new Plunk(pk, { baseUrl: base + "/v1/" }).events.track({ email: "ada@example.net",
    event: "signed-up", data: { plan: "pro", coupon: { value: "X1", persistent: false } } });
  try {
    await mail.events.track({ email: "ada@example.net", event: "signed-up" });
    out.secretTrack = "accepted";
  } catch (e) {
    out.secretTrack = e.constructor.name;
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestPlunkNodeClient runs when HERALD_TEST_PLUNK_NODE names a directory
// whose node_modules holds @plunk/node (.ci/run installs it); otherwise it
// is skipped, since it needs node and the npm registry.
func TestPlunkNodeClient(t *testing.T) {
	dir := os.Getenv("HERALD_TEST_PLUNK_NODE")
	if dir == "" {
		t.Skip("HERALD_TEST_PLUNK_NODE is not set")
	}
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "example.net. 300 IN MX 10 mx.example.net.", "mx.example.net. 300 IN A 127.0.0.1")
	sink := smtptest.Start(t)
	env := []string{"HERALD_DATA_DIR=" + t.TempDir(), "HERALD_DNS_SERVER=" + dns.Addr,
		"HERALD_HOSTNAME=herald.test", "HERALD_SMTP_PORT=" + sink.PortString()}
	var project struct{ Public, Secret string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Node", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, bin, env)
	defer s.stop(t)
	publishAndVerify(t, s, dns, project.Secret, "herald.test")

	// The script goes in the test's own directory, never into dir, and is
	// CommonJS by its extension whatever a package.json around says
	// ("type": "module"); NODE_PATH finds the client installed in dir.
	work := t.TempDir()
	script := filepath.Join(work, "herald-plunk-e2e.cjs")
	if err := os.WriteFile(script, []byte(plunkScript), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, s.url, project.Secret, project.Public)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Send struct {
			Success bool
			Data    struct {
				Emails []struct {
					Contact struct{ ID, Email string }
					Email   string
				}
			}
		}
		Track struct {
			Success bool
			Data    struct{ Contact, Event string }
		}
		SecretTrack string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !got.Send.Success || len(got.Send.Data.Emails) != 1 || got.Send.Data.Emails[0].Contact.Email != "ada@example.net" {
		t.Fatalf("send: %s", out)
	}
	if !got.Track.Success || got.Track.Data.Contact != got.Send.Data.Emails[0].Contact.ID || got.Track.Data.Event == "" {
		t.Fatalf("track: %s", out)
	}
	if got.SecretTrack != "TokenError" { // the client's error for a 401
		t.Errorf("/v1/track with the secret key: %s", got.SecretTrack)
	}
	msgs := sink.Wait(1, 20*time.Second)
	if len(msgs) != 1 || !strings.Contains(string(msgs[0].Data), "Hello from the Node client") ||
		!strings.Contains(string(msgs[0].Data), "DKIM-Signature:") {
		t.Fatalf("delivered: %d messages", len(msgs))
	}
	contact := s.call(t, "GET", "/contacts/"+got.Track.Data.Contact, project.Secret, nil)
	data, _ := contact.body["data"].(map[string]any)
	if contact.body["subscribed"] != true || data["plan"] != "pro" || data["coupon"] != nil {
		t.Errorf("contact after send and track: %s", contact.raw)
	}
}
