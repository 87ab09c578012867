package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// A contact whose data makes the render fail ({{ n | plus: 1 }} with
// n = "abc", written through the public key) fails that recipient's email
// with the error as its reason; the others are sent and the campaign ends
// SENT with failedCount 1; the contact's events and the activity feed show
// the failed email.
func TestCampaignRecipientWhoseRenderFailsIsFailed(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	for _, c := range []map[string]any{
		{"email": "good1@example.net", "event": "signup", "data": map[string]any{"n": 1}},
		{"email": "bad@example.net", "event": "signup", "data": map[string]any{"n": "abc"}},
		{"email": "good2@example.net", "event": "signup", "data": map[string]any{"n": 2}},
	} {
		expectStatus(t, e.Public("POST", "/v1/track", c), 200)
	}
	c := createCampaign(t, e, campaignBody(map[string]any{"body": `<p>{{ n | plus: 1 }}</p><a href="{{unsubscribeUrl}}">u</a>`}))
	sendNow(t, e, c.ID)
	done := waitCampaign(t, e, c.ID, "SENT")
	if got := e.Sink.Wait(2, 10*time.Second); len(got) != 2 {
		t.Fatalf("%d delivered, want 2", len(got))
	}
	st := e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).JSON()
	if d, ok := st["data"].(map[string]any); ok {
		st = d
	}
	if st["failedCount"] != float64(1) {
		t.Fatalf("stats %v, want failedCount 1 (campaign %+v)", st, done)
	}
	var bad page[contactJSON]
	e.Secret("GET", "/contacts?limit=100", nil).Decode(t, &bad)
	badID := ""
	for _, ct := range bad.Data {
		if ct.Email == "bad@example.net" {
			badID = ct.ID
		}
	}
	evs := e.Secret("GET", "/events/contact/"+badID, nil)
	if !strings.Contains(string(evs.Body), `"email.failed"`) || !strings.Contains(string(evs.Body), "not sent: body") {
		t.Errorf("the contact's events do not show the failed email: %s", evs.Body)
	}
	if act := e.Secret("GET", "/activity", nil); !strings.Contains(string(act.Body), `"email.failed"`) {
		t.Errorf("the activity feed does not show the failed email: %s", act.Body)
	}
}
