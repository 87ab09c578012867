package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// seedAudience creates n contacts at example.net; every fifth is
// unsubscribed. It returns how many are subscribed.
func seedAudience(t *testing.T, e *webtest.Env, n int) int {
	t.Helper()
	e.RouteMail("example.net")
	subscribed := 0
	for i := range n {
		sub := i%5 != 0
		if sub {
			subscribed++
		}
		createContact(t, e, map[string]any{"email": fmt.Sprintf("c%03d@example.net", i), "subscribed": sub,
			"data": map[string]any{"name": fmt.Sprintf("N%d", i)}})
	}
	return subscribed
}

// waitCampaign polls until the campaign has the status.
func waitCampaign(t *testing.T, e *webtest.Env, id, status string) campaignJSON {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c := getCampaign(t, e, id)
		if c.Status == status {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("campaign %s is %s, want %s: %+v", id, c.Status, status, c)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sendNow(t *testing.T, e *webtest.Env, id string) {
	t.Helper()
	r := e.Secret("POST", "/campaigns/"+id+"/send", nil)
	expectStatus(t, r, 200)
	if d := r.JSON()["data"].(map[string]any); d["status"] != "SENDING" || d["scheduledFor"] != nil {
		t.Fatalf("send now: %s", r.Body)
	}
}

func TestCampaignSendsOncePerSubscribedContact(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 200)
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	done := waitCampaign(t, e, c.ID, "SENT")
	if done.TotalRecipients != want || done.SentCount != want || done.DeliveredCount != want || done.SentAt == nil {
		t.Fatalf("totals: %+v, want %d", done, want)
	}
	got := e.Sink.Wait(want, 10*time.Second)
	seen := map[string]bool{}
	for _, m := range got {
		rcpt := m.To[0]
		if seen[rcpt] {
			t.Fatalf("%s received twice", rcpt)
		}
		seen[rcpt] = true
	}
	if len(got) != want || seen["c000@example.net"] {
		t.Fatalf("received %d, want %d (unsubscribed c000 included: %v)", len(got), want, seen["c000@example.net"])
	}
	for _, m := range got[:3] {
		verifyDKIM(t, e, m.Data)
	}
	checkUnsubscribeLink(t, e, got[0])
	var st map[string]any
	e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).Decode(t, &st)
	// Plunk's names, as on the campaign object.
	if st["sentCount"] != float64(want) || st["deliveredCount"] != float64(want) || st["totalRecipients"] != float64(want) ||
		st["openedCount"] != float64(0) || st["clickedCount"] != float64(0) || st["bouncedCount"] != float64(0) ||
		st["failedCount"] != float64(0) || st["deliveryRate"] != float64(100) || st["bounceRate"] != float64(0) ||
		st["openRate"] != float64(0) || st["clickRate"] != float64(0) {
		t.Fatalf("stats: %v", st)
	}
	for _, old := range []string{"sent", "delivered", "opened", "clicked", "bounced", "failed"} {
		if _, ok := st[old]; ok {
			t.Fatalf("stats still has %q: %v", old, st)
		}
	}
}

// checkUnsubscribeLink follows a message's unsubscribe link with a
// one-click POST and checks the contact is unsubscribed.
func checkUnsubscribeLink(t *testing.T, e *webtest.Env, m smtptest.Received) {
	t.Helper()
	html := htmlPart(t, m.Data)
	i := strings.Index(html, "http://herald.test/unsubscribe/")
	if i < 0 {
		t.Fatalf("no unsubscribe link: %s", html)
	}
	link := html[i:]
	link = link[:strings.IndexAny(link, `"'`)]
	u, _ := url.Parse(link)
	resp, err := http.Post(e.Server.URL+u.Path, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := contactByEmail(t, e, m.To[0]); c["subscribed"] != false {
		t.Fatalf("link did not unsubscribe %s (%d)", m.To[0], resp.StatusCode)
	}
}

func TestTransactionalCampaignIncludesUnsubscribed(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	seedAudience(t, e, 30)
	c := createCampaign(t, e, campaignBody(map[string]any{"type": "TRANSACTIONAL", "audienceType": "FILTERED",
		"audienceCondition": cond(filter("email", "contains", "c00"))}))
	sendNow(t, e, c.ID)
	done := waitCampaign(t, e, c.ID, "SENT")
	if done.TotalRecipients != 10 || done.DeliveredCount != 10 {
		t.Fatalf("transactional filtered: %+v", done)
	}
	if n := len(e.Sink.Wait(10, 5*time.Second)); n != 10 {
		t.Fatalf("received %d", n)
	}
}

func TestScheduledCampaignSendsWhenDue(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 10)
	c := createCampaign(t, e, campaignBody(nil))
	at := webtest.Start.Add(2 * time.Hour)
	r := e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": at.Format(time.RFC3339)})
	expectStatus(t, r, 200)
	// Before its time no worker can have claimed the send: its job is due
	// at the time and was never attempted, and no email exists yet.
	if attempts, runAt := scheduledJob(t, e, c.ID); attempts != 0 || !runAt.Equal(at) {
		t.Fatalf("send job: %d attempts, due %v, want 0 and %v", attempts, runAt, at)
	}
	var emails int
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT count(*) FROM emails WHERE campaign_id = ?`, c.ID).Scan(&emails)
	if got := getCampaign(t, e, c.ID); got.Status != "SCHEDULED" || emails != 0 || len(e.Sink.Messages()) != 0 {
		t.Fatalf("before time: %+v, %d emails", got, emails)
	}
	var up []map[string]any
	e.Secret("GET", "/activity/upcoming", nil).Decode(t, &up)
	if len(up) != 1 || up[0]["id"] != c.ID {
		t.Fatalf("upcoming: %v", up)
	}
	e.Clock.Advance(2 * time.Hour)
	waitCampaign(t, e, c.ID, "SENT")
	if n := len(e.Sink.Wait(want, 5*time.Second)); n != want {
		t.Fatalf("received %d, want %d", n, want)
	}
}

func TestCancelMidSendStopsDeliveries(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 20)
	for i := range 20 {
		e.Sink.TempFail(fmt.Sprintf("c%03d@example.net", i), 1)
	}
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	// Every first attempt fails for now: the emails wait for a retry.
	waitPending(t, e, c.ID, want)
	var cancelled campaignJSON
	e.Secret("POST", "/campaigns/"+c.ID+"/cancel", nil).Decode(t, &cancelled)
	if cancelled.Status != "CANCELLED" {
		t.Fatalf("cancel: %+v", cancelled)
	}
	// The cancel took the waiting emails out of the queue: past their
	// retry time nothing is due, and nothing is delivered.
	e.Clock.Advance(time.Hour)
	drainDeliveries(t, e)
	if n := len(e.Sink.Messages()); n != 0 {
		t.Fatalf("%d delivered after cancel", n)
	}
	var st map[string]any
	e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).Decode(t, &st)
	if st["cancelledCount"] != float64(want) || st["sentCount"] != float64(0) {
		t.Fatalf("stats after cancel: %v", st)
	}
	if got := getCampaign(t, e, c.ID); got.Status != "CANCELLED" {
		t.Fatalf("campaign after retries: %+v", got)
	}
}

// waitPending waits until n emails of the campaign were attempted once and
// are waiting for a retry.
func waitPending(t *testing.T, e *webtest.Env, campaignID string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var k int
		_ = e.DB.Reader().QueryRow(context.Background(), `SELECT COUNT(*) FROM emails WHERE campaign_id = ?
			AND status = 'PENDING' AND attempts = 1`, campaignID).Scan(&k)
		if k == n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("emails of %s did not all wait for a retry", campaignID)
}

func TestCampaignTestSendIsPrefixedAndNotCounted(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.org")
	c := createCampaign(t, e, campaignBody(nil))
	expectField(t, e.Secret("POST", "/campaigns/"+c.ID+"/test", map[string]any{"email": "nope"}), "email", "invalid_string")
	r := e.Secret("POST", "/campaigns/"+c.ID+"/test", map[string]any{"email": "qa@example.org"})
	expectStatus(t, r, 200)
	got := e.Sink.Wait(1, 5*time.Second)
	if len(got) != 1 {
		t.Fatal("test email not received")
	}
	msg, _ := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if s := msg.Header.Get("Subject"); s != "[TEST] Hello there" {
		t.Fatalf("subject %q", s)
	}
	verifyDKIM(t, e, got[0].Data)
	if cur := getCampaign(t, e, c.ID); cur.Status != "DRAFT" || cur.SentCount != 0 {
		t.Fatalf("test send changed the campaign: %+v", cur)
	}
	if total := e.Secret("GET", "/contacts", nil).JSON()["total"]; total != float64(0) {
		t.Fatalf("test send created a contact: %v", total)
	}
	_ = storage.EmailSent
}

// A scheduled campaign whose sender domain has lost its verification when
// it falls due does not stay SENDING: it goes back to DRAFT, since nothing
// went out, and sends nothing.
func TestCampaignStopsWhenItsDomainIsNoLongerVerified(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	seedAudience(t, e, 5)
	c := createCampaign(t, e, campaignBody(nil))
	at := webtest.Start.Add(time.Hour)
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": at.Format(time.RFC3339)}), 200)

	var domains []map[string]any
	e.Secret("GET", "/domains/project/"+e.Project.ID, nil).Decode(t, &domains)
	id := domains[0]["id"].(string)
	for _, rec := range domains[0]["records"].([]any) {
		if r := rec.(map[string]any); r["purpose"] == "dkim" {
			e.DNS.Remove(strings.TrimSuffix(r["name"].(string), "."), dns.TypeTXT)
		}
	}
	for i := 0; i < 3 && e.Secret("GET", "/domains/"+id+"/verify", nil).JSON()["verified"] == true; i++ {
	}
	if v := e.Secret("GET", "/domains/"+id+"/verify", nil).JSON(); v["verified"] != false {
		t.Fatalf("domain still verified: %v", v)
	}

	e.Clock.Advance(time.Hour)
	got := waitCampaign(t, e, c.ID, "DRAFT")
	if got.ScheduledFor != nil || len(e.Sink.Messages()) != 0 {
		t.Fatalf("after the stop: %+v, %d messages", got, len(e.Sink.Messages()))
	}
}
