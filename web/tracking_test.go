package web_test

import (
	"bytes"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// sendMarketing sends one marketing-template email with a link and returns
// the received message.
func sendMarketing(t *testing.T, e *webtest.Env) (emailID string, raw []byte) {
	t.Helper()
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	r := e.Secret("POST", "/templates", map[string]any{"name": "News", "subject": "News for {{email}}",
		"body": `<p>Hi {{first ?? "friend"}}, read <a href="https://example.com/post?a=1&amp;b=2">this</a>.</p>
<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>` + articleHTML,
		"from": "news@herald.test", "type": "MARKETING"})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("template: %d %s", r.Status, r.Body)
	}
	tpl := r.JSON()["id"].(string)
	emails := sendOK(t, e, map[string]any{"to": "ada@example.net", "template": tpl, "subscribed": true})
	got := e.Sink.Wait(1, 10*time.Second)
	if len(got) != 1 {
		t.Fatal("nothing delivered")
	}
	return emails[0].(map[string]any)["email"].(string), got[0].Data
}

var (
	clickLink = regexp.MustCompile(`http://herald\.test(/t/c/[^"]+)`)
	openPixel = regexp.MustCompile(`http://herald\.test(/t/o/[^"]+)`)
)

func noRedirects(e *webtest.Env) *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestMarketingTemplateHasUnsubscribeHeadersAndTracking(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	emailID, raw := sendMarketing(t, e)
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if lu := msg.Header.Get("List-Unsubscribe"); !strings.Contains(lu, "http://herald.test/unsubscribe/") {
		t.Errorf("List-Unsubscribe = %q", lu)
	}
	if msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post = %q", msg.Header.Get("List-Unsubscribe-Post"))
	}
	html := htmlPart(t, raw)
	if !strings.Contains(html, "Hi friend") {
		t.Errorf("fallback not rendered: %s", html)
	}
	if strings.Contains(html, `href="https://example.com`) {
		t.Errorf("link not rewritten: %s", html)
	}
	if !strings.Contains(html, `href="http://herald.test/unsubscribe/`) {
		t.Errorf("unsubscribe link must stay direct: %s", html)
	}

	// The click redirects to the original URL and records email.click.
	click := clickLink.FindStringSubmatch(html)
	if click == nil {
		t.Fatalf("no click link in %s", html)
	}
	resp, err := noRedirects(e).Get(e.Server.URL + click[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://example.com/post?a=1&b=2" {
		t.Fatalf("click: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// Opens: one event per minute at most, the first one marked isFirst;
	// the pixel answers its image every time.
	open := openPixel.FindStringSubmatch(html)
	for i := 0; i < 3; i++ {
		if i == 2 {
			e.Clock.Advance(time.Minute)
		}
		r := e.Do("GET", open[1], "", nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "image/gif" {
			t.Fatalf("pixel: %d %s", r.Status, r.Header.Get("Content-Type"))
		}
	}
	opens := e.Secret("GET", "/events?name=email.open", nil).JSON()["data"].([]any)
	if len(opens) != 2 {
		t.Fatalf("opens = %v", opens)
	}
	first := opens[1].(map[string]any)["data"].(map[string]any)
	if first["isFirst"] != true || first["emailId"] != emailID {
		t.Errorf("first open data = %v", first)
	}
	clicks := e.Secret("GET", "/events?name=email.click", nil).JSON()["data"].([]any)
	if d := clicks[0].(map[string]any)["data"].(map[string]any); d["link"] != "https://example.com/post?a=1&b=2" {
		t.Errorf("click data = %v", d)
	}
}

func TestTrackingLinksRefuseForgedTokens(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	_, raw := sendMarketing(t, e)
	click := clickLink.FindStringSubmatch(htmlPart(t, raw))[1]
	forged := click[:len(click)-3] + "AAA"
	for _, path := range []string{forged, "/t/c/bm90LWEtdG9rZW4", "/t/o/x.y", "/unsubscribe/abc.def"} {
		resp, err := noRedirects(e).Get(e.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", path, resp.StatusCode)
		}
	}
}

func TestUnsubscribePageAndOneClick(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	_, raw := sendMarketing(t, e)
	msg, _ := mail.ReadMessage(bytes.NewReader(raw))
	lu := strings.Trim(strings.Split(msg.Header.Get("List-Unsubscribe"), ",")[0], "<> ")
	u, err := url.Parse(lu)
	if err != nil {
		t.Fatal(err)
	}
	// A GET only shows the page: mail scanners follow links.
	page := e.Do("GET", u.Path, "", nil)
	if page.Status != 200 || !strings.Contains(string(page.Body), "<form method=\"post\"") {
		t.Fatalf("page: %d %s", page.Status, page.Body)
	}
	if c := contactByEmail(t, e, "ada@example.net"); c["subscribed"] != true {
		t.Fatal("GET unsubscribed the contact")
	}
	// RFC 8058 one-click: a POST with List-Unsubscribe=One-Click.
	resp, err := http.Post(e.Server.URL+u.Path, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("one-click: %d", resp.StatusCode)
	}
	if c := contactByEmail(t, e, "ada@example.net"); c["subscribed"] != false {
		t.Fatal("one-click did not unsubscribe")
	}
	ev := e.Secret("GET", "/events?name=contact.unsubscribed", nil).JSON()["data"].([]any)
	if len(ev) != 1 || ev[0].(map[string]any)["data"].(map[string]any)["reason"] != "unsubscribe_link" {
		t.Fatalf("events = %v", ev)
	}
	// The manage page subscribes again.
	manage := strings.Replace(u.Path, "/unsubscribe/", "/manage/", 1)
	resp, err = http.Post(e.Server.URL+manage, "application/x-www-form-urlencoded", strings.NewReader("action=subscribe"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := contactByEmail(t, e, "ada@example.net"); c["subscribed"] != true {
		t.Fatal("manage page did not subscribe")
	}
}

func contactByEmail(t *testing.T, e *webtest.Env, email string) map[string]any {
	t.Helper()
	data := e.Secret("GET", "/contacts?search="+url.QueryEscape(email), nil).JSON()["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("contacts matching %s: %v", email, data)
	}
	return data[0].(map[string]any)
}

func TestTemplateWithMissingVariablesRendersEmpty(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test",
		"subject": "Hello {{nobody}}!", "body": "<p>[{{missing}}] [{{ data.missing }}]</p>"})
	got := e.Sink.Wait(1, 10*time.Second)
	msg, _ := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if s := msg.Header.Get("Subject"); s != "Hello !" {
		t.Errorf("subject = %q", s)
	}
	if html := htmlPart(t, got[0].Data); !strings.Contains(html, "[] []") {
		t.Errorf("html = %s", html)
	}
}
