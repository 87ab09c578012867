package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// Past a project's HERALD_PUBLIC_PROJECT_RATE_LIMIT in a minute, the open
// pixel still answers its image and the click still redirects, but neither
// is recorded; the next minute they are again.
func TestPublicProjectRateLimit(t *testing.T) {
	e := webtest.New(t, webtest.Options{PublicProjectRateLimit: 2})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	body := `<p>Read <a href="https://example.com/post">this</a>.</p>` + articleHTML
	var pixels, clicks []string
	for i, to := range []string{"a@example.net", "b@example.net", "c@example.net"} {
		sendOK(t, e, map[string]any{"to": to, "from": "news@herald.test", "subject": "News", "body": body})
		got := e.Sink.Wait(i+1, 10*time.Second)
		if len(got) != i+1 {
			t.Fatal("not delivered")
		}
		html := htmlPart(t, got[i].Data)
		pixels = append(pixels, openPixel.FindStringSubmatch(html)[1])
		clicks = append(clicks, clickLink.FindStringSubmatch(html)[1])
	}
	opens := func() int {
		var n int
		if err := e.DB.Reader().QueryRow(context.Background(), `SELECT COUNT(*) FROM events WHERE name = 'email.open'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, p := range pixels {
		r := e.Do("GET", p, "", nil)
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), "GIF89a") {
			t.Fatalf("pixel over the project's limit: %d %v", r.Status, r.Header)
		}
	}
	if n := opens(); n != 2 {
		t.Fatalf("%d opens recorded, want the limit's 2", n)
	}
	resp, err := noRedirects(e).Get(e.Server.URL + clicks[2])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://example.com/post" {
		t.Fatalf("click over the project's limit: %d %v", resp.StatusCode, resp.Header)
	}
	var clicked int
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT COUNT(*) FROM events WHERE name = 'email.click'`).Scan(&clicked)
	if clicked != 0 {
		t.Fatalf("%d clicks recorded over the limit", clicked)
	}
	e.Clock.Advance(time.Minute)
	if r := e.Do("GET", pixels[2], "", nil); r.Status != 200 {
		t.Fatalf("pixel: %d", r.Status)
	}
	if n := opens(); n != 3 {
		t.Fatalf("%d opens recorded the next minute, want 3", n)
	}
}
