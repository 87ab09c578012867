package dashboard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshots regenerates docs/screenshots/*.jpg, the dashboard's main
// pages over a small project with some history:
//
//	HERALD_SCREENSHOTS=1 go test ./web/dashboard -run TestScreenshots -count=1
func TestScreenshots(t *testing.T) {
	if os.Getenv("HERALD_SCREENSHOTS") != "1" {
		t.Skip("set HERALD_SCREENSHOTS=1 to regenerate docs/screenshots")
	}
	out := filepath.Join("..", "..", "docs", "screenshots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	h := startHerald(t)
	tb := newTab(t, h.URL)
	tb.open("/app/login")
	tb.waitText("First start?")
	shoot(tb, out, "login")

	signUp(tb, "ops@acme.example", "Acme newsletter")
	p := tb.currentProject()
	key := *p.Secret
	h.verifiedDomain(t, key, "acme.io")
	h.routeMail(t, "customers.example")
	plans := []string{"free", "pro", "team"}
	countries := []string{"NO", "SE", "DE", "FR", "US"}
	for i := range 60 {
		mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": fmt.Sprintf("customer%02d@customers.example", i),
			"subscribed": i%9 != 0,
			"data":       map[string]any{"firstName": fmt.Sprintf("Customer %d", i), "plan": plans[i%3], "country": countries[i%5], "seats": i%7 + 1}}, nil)
	}
	for i := range 25 {
		mustCall(t, h, p.Public, "POST", "/v1/track", map[string]any{"email": fmt.Sprintf("customer%02d@customers.example", i), "event": []string{"signed-up", "upgraded", "invited-teammate"}[i%3]}, nil)
	}
	var tpl struct {
		ID string `json:"id"`
	}
	mustCall(t, h, key, "POST", "/templates", map[string]any{"name": "Monthly digest", "subject": "Your {{ plan }} digest, {{ firstName }}",
		"from": "news@acme.io", "fromName": "Acme",
		"body": `<div style="font-family:sans-serif;max-width:560px"><h1 style="color:#2952cc">Hello {{ firstName | default: "there" }}</h1><p>Here is what changed on your <b>{{ plan }}</b> plan this month.</p><p><a href="https://acme.example/changes">Read the changes</a></p><p style="color:#888;font-size:12px"><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p></div>`}, &tpl)
	mustCall(t, h, key, "POST", "/segments", map[string]any{"name": "Nordic pros", "condition": map[string]any{"logic": "AND", "groups": []any{
		map[string]any{"filters": []any{map[string]any{"field": "data.plan", "operator": "equals", "value": "pro"}},
			"conditions": map[string]any{"logic": "OR", "groups": []any{
				map[string]any{"filters": []any{map[string]any{"field": "data.country", "operator": "equals", "value": "NO"}}},
				map[string]any{"filters": []any{map[string]any{"field": "data.country", "operator": "equals", "value": "SE"}}}}}}}}}, nil)
	var camp struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	mustCall(t, h, key, "POST", "/campaigns", map[string]any{"name": "October digest", "subject": "October at Acme", "from": "news@acme.io",
		"fromName": "Acme", "body": "<p>Hello {{ firstName }}</p>", "audienceType": "ALL"}, &camp)
	mustCall(t, h, key, "POST", "/campaigns/"+camp.Data.ID+"/send", map[string]any{}, nil)
	mustCall(t, h, key, "POST", "/campaigns", map[string]any{"name": "November digest (draft)", "subject": "November at Acme", "from": "news@acme.io",
		"body": "<p>Hello</p>", "audienceType": "FILTERED", "audienceCondition": map[string]any{"logic": "AND", "groups": []any{
			map[string]any{"filters": []any{map[string]any{"field": "data.plan", "operator": "equals", "value": "team"}}}}}}, nil)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var c struct{ Status string }
		mustCall(t, h, key, "GET", "/campaigns/"+camp.Data.ID, nil, &c)
		if c.Status == "SENT" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}

	pages := []struct{ name, path, wait string }{
		{"overview", "/app/", "Emails per day"},
		{"contacts", "/app/contacts", "contacts"},
		{"templates-editor", "/app/templates/" + tpl.ID, "Test send"},
		{"segments-builder", "/app/segments", "Nordic pros"},
		{"campaigns", "/app/campaigns/" + camp.Data.ID, "Opened"},
		{"domains", "/app/domains", "Verified"},
		{"activity", "/app/activity", "Sent"},
		{"analytics", "/app/analytics", "Top campaigns"},
		{"settings", "/app/settings", "Security health"},
	}
	for _, pg := range pages {
		tb.open(pg.path)
		tb.waitText(pg.wait)
		if pg.name == "segments-builder" {
			tb.click(`//a[.="Nordic pros"]`)
			tb.waitJS(`!!document.querySelector('.live-count strong')`, 5*time.Second)
		}
		time.Sleep(600 * time.Millisecond) // debounced previews and charts settle
		shoot(tb, out, pg.name)
	}
}

func shoot(tb *tab, dir, name string) {
	tb.t.Helper()
	png, err := chromeRun(tb, chromedp.FullScreenshot(80))
	if err != nil {
		tb.fail("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".jpg"), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
