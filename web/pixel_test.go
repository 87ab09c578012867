package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// articleHTML is a newsletter-sized body: longer than 3,200 characters,
// past which SpamAssassin's HTML_IMAGE_ONLY rules no longer score an image.
var articleHTML = strings.Repeat(`<p>This month we rebuilt the delivery queue so that a message waits
less between the moment you send it and the moment the receiving server
accepts it. We also rewrote the guide to sender domains, with a section on
the DNS records each provider asks for and how to check them.</p>
`, 14)

// Every tracked message gets the open pixel after its content, short or
// long, HTML or plain text (its HTML part), with or without images of its
// own; email.sent says that opens are counted (openTracked).
func TestOpenPixelInEveryTrackedMessage(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	cases := []struct {
		name, to, body string
		pixel          bool
	}{
		{"short", "short@example.net", `<p>Your order has shipped. <a href="https://example.com/t">Track it</a>.</p>`, true},
		{"plain", "plain@example.net", "Hi,\n\nThanks for your order.", true},
		{"long", "long@example.net", articleHTML, true},
		{"own image", "image@example.net", `<p>Our new logo: <img src="https://example.com/logo.png" alt="logo"></p>`, true},
	}
	for i, c := range cases {
		emails := sendOK(t, e, map[string]any{"to": c.to, "from": "news@herald.test", "subject": "Hello", "body": c.body})
		got := e.Sink.Wait(i+1, 10*time.Second)
		if len(got) != i+1 {
			t.Fatalf("%s: not delivered", c.name)
		}
		html := htmlPart(t, got[i].Data)
		if has := pixelTag.MatchString(html); has != c.pixel {
			t.Errorf("%s: pixel %v, want %v: %s", c.name, has, c.pixel, html)
		}
		if c.pixel && !strings.Contains(html, `alt="">`+"</body>") {
			t.Errorf("%s: the pixel is not after the content: %s", c.name, html)
		}
		contact := emails[0].(map[string]any)["contact"].(map[string]any)["id"].(string)
		sent := 0
		for _, ev := range contactEvents(t, e, contact) {
			if ev.Name == "email.sent" {
				sent++
				if ev.Data["openTracked"] != c.pixel {
					t.Errorf("%s: email.sent openTracked = %v, want %v", c.name, ev.Data["openTracked"], c.pixel)
				}
			}
		}
		if sent != 1 {
			t.Errorf("%s: %d email.sent events", c.name, sent)
		}
	}
}
