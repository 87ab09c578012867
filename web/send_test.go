package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// verifiedDomain adds a sending domain, publishes the DKIM record POST
// /domains returned in the test's DNS server, and verifies it.
func verifiedDomain(t testing.TB, e *webtest.Env, domain string) {
	t.Helper()
	r := e.Secret("POST", "/domains", map[string]any{"domain": domain})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("POST /domains: %d %s", r.Status, r.Body)
	}
	var d struct {
		ID      string `json:"id"`
		Records []struct {
			Type, Name, Value string
		} `json:"records"`
	}
	r.Decode(t, &d)
	for _, rec := range d.Records {
		if rec.Type == "TXT" && strings.Contains(rec.Name, "._domainkey.") {
			e.DNS.Add(t, fmt.Sprintf("%s. 300 IN TXT %s", strings.TrimSuffix(rec.Name, "."), txtChunks(rec.Value)))
		}
	}
	if v := e.Secret("GET", "/domains/"+d.ID+"/verify", nil); v.JSON()["verified"] != true {
		t.Fatalf("domain not verified: %s", v.Body)
	}
}

// txtChunks quotes a TXT value in strings of at most 255 bytes.
func txtChunks(v string) string {
	var parts []string
	for len(v) > 255 {
		parts = append(parts, `"`+v[:255]+`"`)
		v = v[255:]
	}
	return strings.Join(append(parts, `"`+v+`"`), " ")
}

// verifyDKIM checks a received message's signature against the DNS server.
func verifyDKIM(t *testing.T, e *webtest.Env, raw []byte) {
	t.Helper()
	res := resolver.New(e.DNS.Addr, time.Second)
	verifications, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{
		LookupTXT: func(name string) ([]string, error) { return res.TXT(context.Background(), name) },
	})
	if err != nil || len(verifications) != 1 || verifications[0].Err != nil {
		t.Fatalf("DKIM: %v %+v", err, verifications)
	}
}

func sendOK(t *testing.T, e *webtest.Env, body map[string]any) []any {
	t.Helper()
	r := e.Secret("POST", "/v1/send", body)
	if r.Status != 200 {
		t.Fatalf("send: %d %s", r.Status, r.Body)
	}
	return r.JSON()["data"].(map[string]any)["emails"].([]any)
}

func htmlPart(t testing.TB, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return findPart(t, msg.Header.Get("Content-Type"), msg.Body, "text/html")
}

func findPart(t testing.TB, contentType string, body io.Reader, want string) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatal(err)
	}
	if mt == want {
		b, _ := io.ReadAll(body)
		return string(b)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		return ""
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return ""
		}
		if s := findPart(t, p.Header.Get("Content-Type"), p, want); s != "" {
			return s
		}
	}
}

func TestSendDeliversSignedMailToEachRecipient(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	e.RouteMail("example.org")
	emails := sendOK(t, e, map[string]any{
		"to":      []any{"ada@example.net", map[string]any{"name": "Bob", "email": "BOB@example.org"}},
		"from":    map[string]any{"name": "Herald", "email": "hello@herald.test"},
		"subject": "Hi {{name ?? \"there\"}}",
		"body":    "<p>Hello {{name}}</p>",
		"data":    map[string]any{"name": "<script>alert(1)</script>"},
	})
	if len(emails) != 2 {
		t.Fatalf("emails = %v", emails)
	}
	got := e.Sink.Wait(2, 10*time.Second)
	if len(got) != 2 {
		t.Fatalf("received %d messages", len(got))
	}
	for _, m := range got {
		verifyDKIM(t, e, m.Data)
		html := htmlPart(t, m.Data)
		if strings.Contains(html, "<script>") || !strings.Contains(html, "&lt;script&gt;") {
			t.Errorf("contact data not escaped in HTML: %s", html)
		}
	}
	// New contacts through /v1/send are unsubscribed.
	c := e.Secret("GET", "/contacts?search=bob@example.org", nil).JSON()["data"].([]any)[0].(map[string]any)
	if c["subscribed"] != false {
		t.Errorf("new contact via send: %v", c)
	}
	waitStatus(t, e, emails[0].(map[string]any)["email"].(string), storage.EmailDelivered)
}

func waitStatus(t *testing.T, e *webtest.Env, emailID, want string) storage.Email {
	t.Helper()
	return waitAttempt(t, e, emailID, want, 0)
}

// waitAttempt waits until an email has the status after at least
// attempts delivery attempts.
func waitAttempt(t *testing.T, e *webtest.Env, emailID, want string, attempts int) storage.Email {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		em, err := storage.EmailByID(context.Background(), e.DB.Reader(), emailID)
		if err == nil && em.Status == want && em.Attempts >= attempts {
			return em
		}
		if time.Now().After(deadline) {
			t.Fatalf("email %s: status %q, want %q (%v) attempts=%d last=%d %s", emailID, em.Status, want, err, em.Attempts, em.LastCode, em.LastResponse)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSendRetriesTemporaryFailureThenDelivers(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	e.Sink.TempFail("ada@example.net", 1)
	emails := sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": "b"})
	id := emails[0].(map[string]any)["email"].(string)
	waitAttempt(t, e, id, storage.EmailPending, 1)
	e.AdvanceToRetry(messaging.JobDeliver)
	waitStatus(t, e, id, storage.EmailDelivered)
	if n := len(e.Sink.Messages()); n != 1 {
		t.Fatalf("delivered %d times", n)
	}
}

func TestSendPermanentFailureBouncesAndUnsubscribes(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	e.Sink.Reject("gone@example.net")
	emails := sendOK(t, e, map[string]any{"to": "gone@example.net", "from": "hello@herald.test",
		"subject": "s", "body": "b", "subscribed": true})
	id := emails[0].(map[string]any)["email"].(string)
	em := waitStatus(t, e, id, storage.EmailBounced)
	if em.LastCode != 550 || em.LastEnhanced != "5.1.1" {
		t.Errorf("last response = %d %s", em.LastCode, em.LastEnhanced)
	}
	names := eventNameSet(t, e)
	for _, want := range []string{"email.sent", "email.bounce", "contact.unsubscribed"} {
		if !names[want] {
			t.Errorf("missing event %s in %v", want, names)
		}
	}
}

func eventNameSet(t *testing.T, e *webtest.Env) map[string]bool {
	t.Helper()
	var names []string
	e.Secret("GET", "/events/names", nil).Decode(t, &names)
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func TestSendRefusesUnverifiedDomain(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	r := e.Secret("POST", "/v1/send", map[string]any{"to": "a@example.net", "from": "x@unverified.test", "subject": "s", "body": "b"})
	if r.Status != 403 || r.ErrorCode() != "INTERNAL_SERVER_ERROR" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
	details := r.JSON()["error"].(map[string]any)["details"].(map[string]any)
	if details["reason"] != "DOMAIN_NOT_VERIFIED" {
		t.Errorf("details = %v", details)
	}
}

func TestSendRejectsBadInput(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	big := base64.StdEncoding.EncodeToString(make([]byte, 11<<20))
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no recipient", map[string]any{"from": "a@herald.test", "subject": "s", "body": "b"}, "to"},
		{"bad recipient", map[string]any{"to": []any{"ok@example.net", "nope"}, "from": "a@herald.test", "subject": "s", "body": "b"}, "to.1"},
		{"bad object recipient", map[string]any{"to": map[string]any{"email": "x"}, "from": "a@herald.test", "subject": "s", "body": "b"}, "to.email"},
		{"subject newline", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": "a\r\nBcc: x@y.z", "body": "b"}, "subject"},
		{"subject too long", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": strings.Repeat("s", 999), "body": "b"}, "subject"},
		{"empty body", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": "s", "body": ""}, "body"},
		{"header injection", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": "s", "body": "b",
			"headers": map[string]any{"X-Ok": "v\r\nBcc: evil@x.y"}}, "headers"},
		{"too many attachments", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": "s", "body": "b",
			"attachments": attachments(11, "aGk=")}, "attachments"},
		{"oversized attachments", map[string]any{"to": "a@example.net", "from": "a@herald.test", "subject": "s", "body": "b",
			"attachments": attachments(1, big)}, "attachments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Secret("POST", "/v1/send", c.body)
			if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"`+c.field) {
				t.Fatalf("got %d %s", r.Status, r.Body)
			}
		})
	}
	if n := len(e.Sink.Messages()); n != 0 {
		t.Errorf("%d messages sent by bad requests", n)
	}
	if total := e.Secret("GET", "/contacts", nil).JSON()["total"]; total != float64(0) {
		t.Errorf("bad requests created contacts: %v", total)
	}
}

func attachments(n int, content string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"filename": fmt.Sprintf("f%d.txt", i), "content": content, "contentType": "text/plain"}
	}
	return out
}

func TestDeliveryFallsBackToSecondMXAndSurvivesDrops(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	// The first MX has an address nothing listens on; the second is the sink.
	e.DNS.Add(t, "example.net. 300 IN MX 10 down.example.net.", "down.example.net. 300 IN A 127.0.0.9",
		"example.net. 300 IN MX 20 up.example.net.", "up.example.net. 300 IN A 127.0.0.1")
	e.Sink.DropDuringData(1)
	emails := sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": "b"})
	id := emails[0].(map[string]any)["email"].(string)
	waitAttempt(t, e, id, storage.EmailPending, 1) // the dropped DATA is a temporary failure
	e.AdvanceToRetry(messaging.JobDeliver)
	waitStatus(t, e, id, storage.EmailDelivered)
}

func TestNullMXBounces(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.DNS.Add(t, "nomail.test. 300 IN MX 0 .")
	emails := sendOK(t, e, map[string]any{"to": "a@nomail.test", "from": "hello@herald.test", "subject": "s", "body": "b"})
	waitStatus(t, e, emails[0].(map[string]any)["email"].(string), storage.EmailBounced)
}
