package web_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

var saDetail = regexp.MustCompile(`(?m)^\s*(-?[\d.]+) ([A-Z0-9_]+)\s`)

// spamAssassin scores each message with the default rules, local tests
// only (no DNS or network lists: the test machine's network is not the
// recipient's), in one run over an mbox (SpamAssassin takes seconds to
// start), and returns the points of each rule that fired, per message.
func spamAssassin(t *testing.T, msgs ...[]byte) []map[string]float64 {
	t.Helper()
	var mbox bytes.Buffer
	for _, m := range msgs {
		mbox.WriteString("From herald@herald.test Thu Jan 15 12:00:00 2026\n")
		mbox.Write(bytes.ReplaceAll(m, []byte("\r\n"), []byte("\n")))
		mbox.WriteString("\n")
	}
	cmd := exec.Command("spamassassin", "-L", "-t", "--mbox")
	cmd.Stdin = &mbox
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spamassassin: %v", err)
	}
	reports := bytes.Split(out, []byte("Content analysis details:"))[1:]
	if len(reports) != len(msgs) {
		t.Fatalf("%d reports for %d messages:\n%s", len(reports), len(msgs), out)
	}
	all := make([]map[string]float64, len(reports))
	for i, details := range reports {
		// A report ends where the next message's copy begins.
		details, _, _ = bytes.Cut(details, []byte("\nFrom herald@herald.test "))
		all[i] = map[string]float64{}
		for _, m := range saDetail.FindAllSubmatch(details, -1) {
			pts, _ := strconv.ParseFloat(string(m[1]), 64)
			all[i][string(m[2])] = pts
		}
	}
	return all
}

// requireSpamAssassin skips a test without spamassassin, unless
// HERALD_REQUIRE_SPAMASSASSIN is set (CI installs it and sets it), where a
// missing spamassassin fails.
func requireSpamAssassin(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("spamassassin"); err != nil {
		if os.Getenv("HERALD_REQUIRE_SPAMASSASSIN") != "" {
			t.Fatalf("HERALD_REQUIRE_SPAMASSASSIN is set but spamassassin is not on PATH: %v", err)
		}
		t.Skip("spamassassin not installed (apt-get install spamassassin; CI sets HERALD_REQUIRE_SPAMASSASSIN=1)")
	}
}

// moreStandardMessages adds to standardMessages' environment a campaign, a
// workflow's email and a newsletter long enough for the open pixel.
func moreStandardMessages(t *testing.T, e *webtest.Env) (campaign, workflow, newsletter []byte) {
	t.Helper()
	n := len(e.Sink.Messages())
	c := createCampaign(t, e, campaignBody(map[string]any{"audienceType": "FILTERED",
		"audienceCondition": map[string]any{"logic": "AND", "groups": []any{map[string]any{"filters": []any{
			map[string]any{"field": "email", "operator": "equals", "value": "ada@example.net"}}}}},
		"body": `<p>Hi {{name ?? "there"}},</p><p>Our spring collection is here. <a href="https://example.com/spring">See it</a>.</p>
<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>`}))
	sendNow(t, e, c.ID)
	waitCampaign(t, e, c.ID, "SENT")
	got := e.Sink.Wait(n+1, 10*time.Second)
	campaign = got[n].Data

	tpl := e.Secret("POST", "/templates", map[string]any{"name": "Welcome", "subject": "Welcome, {{name ?? \"friend\"}}",
		"body": `<p>Welcome to the shop. Your account is ready.</p><p><a href="https://example.com/start">Get started</a></p>`,
		"from": "hello@herald.test", "type": "TRANSACTIONAL"})
	expectStatus(t, tpl, 201)
	w := createWorkflow(t, e, map[string]any{"name": "Welcome", "eventName": "welcome", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": tpl.JSON()["id"]}})
	trackEvent(t, e, "ada@example.net", "welcome", nil)
	got = e.Sink.Wait(n+2, 10*time.Second)
	workflow = got[n+1].Data

	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "news@herald.test", "subject": "Our news for March",
		"body": `<h1>News for March</h1>` + articleHTML})
	got = e.Sink.Wait(n+3, 10*time.Second)
	newsletter = got[n+2].Data
	if len(got) != n+3 {
		t.Fatalf("%d messages, want %d", len(got), n+3)
	}
	if !pixelTag.MatchString(htmlPart(t, newsletter)) {
		t.Fatalf("the newsletter has no open pixel: %s", newsletter)
	}
	return campaign, workflow, newsletter
}

// Herald's standard messages score under 0.5 with SpamAssassin's default
// rules (Debian's spamassassin package in CI): a transactional /v1/send
// with a short HTML body, a marketing template, a plain-text one, a
// campaign, a workflow's email and a long newsletter with the open pixel.
// The pixel cost 0.6-1.7 points in the short ones (HTML_IMAGE_ONLY_xx) and
// is left out of them (see wantsPixel).
func TestStandardMessagesSpamAssassin(t *testing.T) {
	requireSpamAssassin(t)
	e, short, marketing, plain := standardMessages(t)
	campaign, workflow, newsletter := moreStandardMessages(t, e)
	names := []string{"short", "marketing", "plain", "campaign", "workflow", "newsletter"}
	for i, rules := range spamAssassin(t, short, marketing, plain, campaign, workflow, newsletter) {
		total := 0.0
		for _, pts := range rules {
			total += pts
		}
		t.Logf("%s: %.1f %v", names[i], total, rules)
		if total >= 0.5 {
			t.Errorf("%s: %.1f points, want under 0.5: %v", names[i], total, rules)
		}
	}
}
