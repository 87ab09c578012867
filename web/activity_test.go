package web_test

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func TestActivityAndAnalytics(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	seedAudience(t, e, 5) // c000 is unsubscribed: 4 recipients
	expectStatus(t, e.Public("POST", "/v1/track", map[string]any{"email": "c001@example.net", "event": "signup"}), 200)
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitCampaign(t, e, c.ID, "SENT")

	var feed struct {
		Data []struct {
			Type, ContactID, ContactEmail string
		} `json:"data"`
		Cursor  string `json:"cursor"`
		HasMore bool   `json:"hasMore"`
		Total   int    `json:"total"`
	}
	e.Secret("GET", "/activity?type=sent&limit=3", nil).Decode(t, &feed)
	if feed.Total != 4 || len(feed.Data) != 3 || !feed.HasMore || feed.Data[0].Type != "email.sent" || feed.Data[0].ContactEmail == "" {
		t.Fatalf("sent feed: %+v", feed)
	}
	e.Secret("GET", "/activity?type=sent&limit=3&cursor="+feed.Cursor, nil).Decode(t, &feed)
	if len(feed.Data) != 1 || feed.HasMore || feed.Total != 0 {
		t.Fatalf("page 2: %+v", feed)
	}
	e.Secret("GET", "/activity?type=tracked", nil).Decode(t, &feed)
	if feed.Total != 1 || feed.Data[0].Type != "signup" {
		t.Fatalf("tracked: %+v", feed)
	}
	cid := feed.Data[0].ContactID
	e.Secret("GET", "/activity?contactId="+cid+"&type=email", nil).Decode(t, &feed)
	if feed.Total != 2 { // email.sent and email.delivery
		t.Fatalf("contact's email activity: %+v", feed)
	}

	var stats struct {
		Total  int            `json:"total"`
		ByType map[string]int `json:"byType"`
	}
	e.Secret("GET", "/activity/stats", nil).Decode(t, &stats)
	if stats.ByType["email.sent"] != 4 || stats.ByType["email.delivery"] != 4 || stats.ByType["signup"] != 1 {
		t.Fatalf("stats: %+v", stats)
	}
	if n := e.Secret("GET", "/activity/recent-count?minutes=5", nil).JSON()["count"]; n != float64(stats.Total) {
		t.Fatalf("recent count %v, want %d", n, stats.Total)
	}
	var types []string
	e.Secret("GET", "/activity/types", nil).Decode(t, &types)
	if len(types) < 3 {
		t.Fatalf("types: %v", types)
	}

	var series struct {
		Data []map[string]any `json:"data"`
	}
	from := webtest.Start.Add(-48 * time.Hour).Format(time.RFC3339)
	to := webtest.Start.Add(24 * time.Hour).Format(time.RFC3339)
	r := e.Secret("GET", "/analytics/timeseries?interval=day&tz=Asia/Kolkata&from="+from+"&to="+to, nil)
	expectStatus(t, r, 200)
	r.Decode(t, &series)
	var sent, delivered float64
	for _, p := range series.Data {
		sent += p["sent"].(float64)
		delivered += p["delivered"].(float64)
	}
	if len(series.Data) < 3 || sent != 4 || delivered != 4 {
		t.Fatalf("series: %s", r.Body)
	}
	r = e.Secret("GET", "/analytics/timeseries?interval=hour&from="+from+"&to="+to, nil)
	expectStatus(t, r, 200)
	expectField(t, e.Secret("GET", "/analytics/timeseries?tz=Mars/Olympus", nil), "tz", "invalid_timezone")
	expectField(t, e.Secret("GET", "/analytics/timeseries?from=yesterday", nil), "from", "invalid_date")
	expectField(t, e.Secret("GET", "/analytics/timeseries?interval=week", nil), "interval", "invalid_enum_value")

	var top []map[string]any
	e.Secret("GET", "/analytics/top-campaigns?metric=delivered", nil).Decode(t, &top)
	if len(top) != 1 || top[0]["id"] != c.ID || top[0]["delivered"] != float64(4) {
		t.Fatalf("top campaigns: %v", top)
	}
	expectField(t, e.Secret("GET", "/analytics/top-campaigns?metric=vibes", nil), "metric", "invalid_enum_value")
	cs := e.Secret("GET", "/analytics/campaign-stats", nil).JSON()
	if cs["byStatus"].(map[string]any)["SENT"] != float64(1) {
		t.Fatalf("campaign stats: %v", cs)
	}
	var events []map[string]any
	e.Secret("GET", "/analytics/top-events?limit=2", nil).Decode(t, &events)
	if len(events) != 2 {
		t.Fatalf("top events: %v", events)
	}
}
