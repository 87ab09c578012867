package web_test

import (
	"bytes"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// standardMessages sends the messages Herald's users send most: a short
// transactional HTML fragment, a marketing template with contact data in
// its links, and a plain-text body; it returns them as delivered.
func standardMessages(t *testing.T) (e *webtest.Env, short, marketing, plain []byte) {
	e = webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	// Contact data written through the public key can hold any URL.
	expectStatus(t, e.Public("POST", "/v1/track", map[string]any{"email": "ada@example.net", "event": "signup",
		"data": map[string]any{"site": "javascript:alert(document.cookie)", "phone": "tel:+4930123456"}}), 200)
	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "orders@herald.test", "subject": "Your order has shipped",
		"body": `<p>Hi Ada,</p><p>Your order #1234 has shipped. <a href="https://example.com/track/1234">Track it</a>.</p>`})
	short = e.Sink.Wait(1, 10*time.Second)[0].Data
	r := e.Secret("POST", "/templates", map[string]any{"name": "News", "subject": "News", "type": "MARKETING",
		"from": "news@herald.test", "body": `<p>Our news. <a href="{{site}}">Your site</a> <a href="{{phone}}">Call</a>
<a href="mailto:help@herald.test">Mail us</a> <a href="https://example.com/x">Read</a></p>
<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>`})
	expectStatus(t, r, 201)
	sendOK(t, e, map[string]any{"to": "ada@example.net", "template": r.JSON()["id"].(string)})
	marketing = e.Sink.Wait(2, 10*time.Second)[1].Data
	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "orders@herald.test", "subject": "Receipt",
		"body": "Hi Ada,\n\nThanks for your order.\nTotal: 12 EUR\n\n-- \nThe shop"})
	plain = e.Sink.Wait(3, 10*time.Second)[2].Data
	return e, short, marketing, plain
}

func textPart(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return findPart(t, msg.Header.Get("Content-Type"), msg.Body, "text/plain")
}

var pixelTag = regexp.MustCompile(`<img src="http://herald\.test/t/o/[^"]+" width="1" height="1" alt="">`)

// styInvis is SpamAssassin's __STY_INVIS (72_active.cf), without its
// look-behind, which Go's regexp lacks: a style that hides an element.
var styInvis = regexp.MustCompile(`(?i)\bstyle\s*=\s*"[^">]{0,80}(?:visibility\s*:\s*hidden\s*|display\s*:\s*none\s*)[;"!]`)

func TestStandardMessagesFormat(t *testing.T) {
	_, short, marketing, plain := standardMessages(t)
	for name, raw := range map[string][]byte{"short": short, "marketing": marketing, "plain": plain} {
		html := strings.TrimSpace(htmlPart(t, raw))
		if !strings.HasPrefix(html, "<html><body>") || !strings.HasSuffix(html, "</body></html>") {
			t.Errorf("%s: fragment not wrapped: %q", name, html)
		}
		// The one image is the pixel, right before </body>, and nothing
		// is hidden (STY_INVIS_DIRECT counts hidden elements).
		if strings.Count(html, "<img") != 1 || !strings.HasSuffix(html, `alt=""></body></html>`) || !pixelTag.MatchString(html) {
			t.Errorf("%s: want the pixel, alone, after the content: %q", name, html)
		}
		if styInvis.MatchString(html) {
			t.Errorf("%s: an invisible style: %q", name, html)
		}
		for _, line := range strings.Split(string(raw), "\r\n") {
			if line == "" {
				break // end of the header
			}
			// A List-Unsubscribe URL is one token that cannot be folded
			// without risking the one-click unsubscribe (see README).
			if len(line) > 78 && !strings.HasPrefix(line, "List-Unsubscribe: <") {
				t.Errorf("%s: header line of %d: %q", name, len(line), line)
			}
		}
	}
	// Contact data in a URL attribute keeps only safe schemes; click
	// tracking rewrites only http(s) links.
	html := htmlPart(t, marketing)
	if strings.Contains(html, "javascript") || !strings.Contains(html, `href="#"`) {
		t.Errorf("javascript: URL from contact data not neutralised: %s", html)
	}
	if !strings.Contains(html, `href="tel:+4930123456"`) || !strings.Contains(html, `href="mailto:help@herald.test"`) {
		t.Errorf("tel: or mailto: link rewritten or lost: %s", html)
	}
	if strings.Contains(html, "https://example.com/x") || len(clickLink.FindAllString(html, -1)) != 1 {
		t.Errorf("want exactly the https link rewritten: %s", html)
	}
	// A plain-text body keeps its lines, in both parts.
	if got := strings.ReplaceAll(textPart(t, plain), "\r\n", "\n"); !strings.Contains(got, "Hi Ada,\n\nThanks for your order.\nTotal: 12 EUR\n\n-- \nThe shop") {
		t.Errorf("text part lost its lines: %q", got)
	}
	if got := strings.ReplaceAll(htmlPart(t, plain), "\r\n", "\n"); !strings.Contains(got, "Thanks for your order.<br>\nTotal: 12 EUR<br>") {
		t.Errorf("html part of a text body: %q", got)
	}
}
