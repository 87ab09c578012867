package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// An open of one email, or a click of one email's link, is recorded at
// most once a minute, even with rate limits off; the redirect and the
// pixel answer every time.
func TestRepeatedOpensAndClicksRecordedOncePerMinute(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "news@herald.test", "subject": "Hi",
		"body": `<p><a href="https://example.com/a">a</a> <a href="https://example.com/b">b</a></p>` + articleHTML})
	got := e.Sink.Wait(1, 10*time.Second)
	if len(got) != 1 {
		t.Fatal("nothing delivered")
	}
	html := htmlPart(t, got[0].Data)
	clicks := clickLink.FindAllStringSubmatch(html, -1)
	if len(clicks) != 2 {
		t.Fatalf("click links %v", clicks)
	}
	pixel := openPixel.FindStringSubmatch(html)[1]
	follow := func(path, want string) {
		t.Helper()
		resp, err := noRedirects(e).Get(e.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Fatalf("click %s: %d %q", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	count := func(name string) int {
		t.Helper()
		return len(e.Secret("GET", "/events?name="+name, nil).JSON()["data"].([]any))
	}
	for i := 0; i < 5; i++ {
		follow(clicks[0][1], "https://example.com/a")
		follow(clicks[1][1], "https://example.com/b")
		if r := e.Do("GET", pixel, "", nil); r.Status != 200 || r.Header.Get("Content-Type") != "image/gif" {
			t.Fatalf("pixel %d", r.Status)
		}
		e.Clock.Advance(10 * time.Second)
	}
	if c, o := count("email.click"), count("email.open"); c != 2 || o != 1 {
		t.Fatalf("%d clicks (want one per link), %d opens (want 1) within a minute", c, o)
	}
	e.Clock.Advance(10 * time.Second) // a minute after the first
	follow(clicks[0][1], "https://example.com/a")
	e.Do("GET", pixel, "", nil)
	if c, o := count("email.click"), count("email.open"); c != 3 || o != 2 {
		t.Fatalf("after a minute: %d clicks, %d opens", c, o)
	}
}

// A pixel whose token names no email (deleted, or forged) records nothing
// and still answers an image, with 404.
func TestUnknownPixelStillAnswersAnImage(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, path := range []string{"/t/o/x.y", "/t/o/AAGiEw_LlX6ws-w4yJNQNHgsLFoo0pBfapaVLbU", "/t/o/nothing.gif"} {
		r := e.Do("GET", path, "", nil)
		if r.Status != 404 || r.Header.Get("Content-Type") != "image/gif" || !strings.HasPrefix(string(r.Body), "GIF89a") {
			t.Errorf("%s: %d %q", path, r.Status, r.Header.Get("Content-Type"))
		}
	}
}
