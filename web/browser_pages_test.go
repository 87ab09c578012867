package web_test

import (
	"bytes"
	"io"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// TestBrowserLinksAnswerPages: links people open in a browser answer a
// small HTML page when their token is bad, never the API's JSON.
func TestBrowserLinksAnswerPages(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	for _, c := range []struct{ method, path string }{
		{"GET", "/t/c/bm90LWEtdG9rZW4"},
		{"GET", "/t/c/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"GET", "/unsubscribe/abc.def"},
		{"POST", "/unsubscribe/abc.def"},
		{"GET", "/subscribe/x"},
		{"GET", "/manage/x"},
		{"POST", "/manage/x"},
	} {
		req, _ := http.NewRequest(c.method, e.Server.URL+c.path, nil)
		resp, err := noRedirects(e).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "<h1>Link not valid</h1>") {
			t.Errorf("%s %s: %d %s\n%s", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

var listUnsubscribe = regexp.MustCompile(`<(http://herald\.test/unsubscribe/[^>]+)>`)

// TestTestSendUnsubscribeLinkSaysItWasATest: a test send's unsubscribe
// link says so, and changes nobody, even when the address is a contact's.
func TestTestSendUnsubscribeLinkSaysItWasATest(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.org")
	contact := createContact(t, e, map[string]any{"email": "qa@example.org", "subscribed": true})
	c := createCampaign(t, e, campaignBody(nil))
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/test", map[string]any{"email": "qa@example.org"}), 200)
	got := e.Sink.Wait(1, 5*time.Second)
	if len(got) != 1 {
		t.Fatal("test email not received")
	}
	msg, _ := mail.ReadMessage(bytes.NewReader(got[0].Data))
	m := listUnsubscribe.FindStringSubmatch(msg.Header.Get("List-Unsubscribe"))
	if m == nil {
		t.Fatalf("no unsubscribe link in %q", msg.Header.Get("List-Unsubscribe"))
	}
	u, _ := url.Parse(m[1])
	for _, method := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(method, e.Server.URL+u.Path, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "test email") || strings.Contains(string(body), "no longer exists") {
			t.Fatalf("%s %s: %d\n%s", method, u.Path, resp.StatusCode, body)
		}
	}
	if cur := getContact(t, e, contact.ID); !cur.Subscribed {
		t.Fatal("a test send's link unsubscribed the contact")
	}
}
