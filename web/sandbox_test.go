package web_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// The sandbox (herald serve --sandbox): nothing leaves the machine, every
// message is captured with its DKIM check, domains are verified without
// DNS.

type sandboxMessageJSON struct {
	ID         string            `json:"id"`
	EmailID    *string           `json:"emailId"`
	From       string            `json:"from"`
	To         []string          `json:"to"`
	Subject    string            `json:"subject"`
	Headers    map[string]string `json:"headers"`
	HTML       string            `json:"html"`
	Text       string            `json:"text"`
	Raw        string            `json:"raw"`
	DKIM       string            `json:"dkim"`
	ReturnPath string            `json:"returnPath"`
	CreatedAt  string            `json:"createdAt"`
}

type sandboxPageJSON struct {
	Data    []sandboxMessageJSON `json:"data"`
	Cursor  string               `json:"cursor"`
	HasMore bool                 `json:"hasMore"`
	Total   int                  `json:"total"`
}

// sandboxDomain adds a sender domain: verified at once, without a record
// in the test's DNS server.
func sandboxDomain(t *testing.T, e *webtest.Env, domain string) {
	t.Helper()
	r := e.Secret("POST", "/domains", map[string]any{"domain": domain})
	expectStatus(t, r, 201)
	d := r.JSON()
	if d["verified"] != true || d["status"] != "verified" {
		t.Fatalf("domain in the sandbox: %s", r.Body)
	}
	for _, rec := range d["records"].([]any) {
		if rec := rec.(map[string]any); rec["status"] != "verified" {
			t.Errorf("record %v", rec)
		}
	}
}

// waitCaptured waits until the sandbox lists n messages of the key's
// project, and returns the list. (The page and its total are two reads: a
// capture may commit between them.)
func waitCaptured(t *testing.T, e *webtest.Env, n int) sandboxPageJSON {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.Secret("GET", "/sandbox/messages?limit=100", nil)
		expectStatus(t, r, 200)
		var page sandboxPageJSON
		r.Decode(t, &page)
		if len(page.Data) >= n && page.Total == len(page.Data) {
			return page
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d captured messages, want %d", page.Total, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSandboxCapturesEveryMessageSignedAndChecked(t *testing.T) {
	e := webtest.New(t, webtest.Options{Sandbox: true})
	if cfg := configOf(t, e); cfg["sandbox"] != true || cfg["features"].(map[string]any)["sandbox"] != true {
		t.Fatalf("/config: %v", cfg)
	}
	sandboxDomain(t, e, "example.org")
	// No MX for example.com anywhere: nothing would reach it for real.
	emails := sendOK(t, e, map[string]any{
		"to": "reader@example.com", "from": map[string]any{"name": "Ünïcode Sender", "email": "hello@example.org"},
		"subject": "Welcome aboard ✓",
		"body":    `<p>Hello! <a href="https://example.com/start">Start here</a></p>`,
	})
	emailID := emails[0].(map[string]any)["email"].(string)
	page := waitCaptured(t, e, 1)
	if len(page.Data) != 1 || page.Data[0].Raw != "" || page.Data[0].Headers != nil {
		t.Fatalf("list: %+v", page)
	}
	r := e.Secret("GET", "/sandbox/messages/"+page.Data[0].ID, nil)
	expectStatus(t, r, 200)
	var m sandboxMessageJSON
	r.Decode(t, &m)
	if m.ID != page.Data[0].ID || m.EmailID == nil || *m.EmailID != emailID || m.DKIM != "pass" ||
		m.From != "Ünïcode Sender <hello@example.org>" ||
		len(m.To) != 1 || m.To[0] != "reader@example.com" || m.Subject != "Welcome aboard ✓" {
		t.Fatalf("message: %+v", m)
	}
	for _, name := range []string{"DKIM-Signature", "Return-Path", "Received", "Message-ID", "From", "To", "Subject", "Date", "MIME-Version"} {
		if m.Headers[name] == "" {
			t.Errorf("header %s missing: %v", name, m.Headers)
		}
	}
	if !strings.Contains(m.Headers["DKIM-Signature"], "d=example.org") || strings.Contains(m.Headers["DKIM-Signature"], "\n") {
		t.Errorf("DKIM-Signature %q", m.Headers["DKIM-Signature"])
	}
	if !strings.Contains(m.HTML, "Start here") || !strings.Contains(m.HTML, "http://herald.test/") || !strings.Contains(m.Text, "Start here") {
		t.Errorf("parts: html %q text %q", m.HTML, m.Text)
	}
	if !strings.HasPrefix(m.Raw, "Return-Path: <hello@example.org>\r\nReceived: by herald-sandbox") || !strings.Contains(m.Raw, "\r\nDKIM-Signature: ") {
		t.Errorf("raw starts %q", m.Raw[:min(len(m.Raw), 200)])
	}

	// The whole send path ran: the email is DELIVERED by the sandbox, with
	// email.sent and email.delivery, and nothing reached a mail server.
	em := waitEmail(t, e, emailID, storage.EmailDelivered)
	if em.MXHost != "sandbox" || em.LastCode != 250 {
		t.Errorf("email %+v", em)
	}
	evs := contactEvents(t, e, emails[0].(map[string]any)["contact"].(map[string]any)["id"].(string))
	if countNamed(evs, "email.sent") != 1 || countNamed(evs, "email.delivery") != 1 {
		t.Errorf("events %v", eventNames(evs))
	}
	if n := len(e.Sink.Messages()); n != 0 {
		t.Errorf("the SMTP sink received %d messages", n)
	}
}

func waitEmail(t *testing.T, e *webtest.Env, id, status string) storage.Email {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		em, err := storage.EmailByID(context.Background(), e.DB.Reader(), id)
		if err == nil && em.Status == status {
			return em
		}
		if time.Now().After(deadline) {
			t.Fatalf("email %s: %q, want %q (%v)", id, em.Status, status, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A message whose signature does not verify against the domain's key is
// captured with dkim "fail": the check is real.
func TestSandboxDKIMFailsOnATamperedMessage(t *testing.T) {
	e := webtest.New(t, webtest.Options{Sandbox: true})
	sandboxDomain(t, e, "example.org")
	sendOK(t, e, map[string]any{"to": "reader@example.com", "from": "hello@example.org", "subject": "Original", "body": "<p>Original body</p>"})
	first := waitCaptured(t, e, 1).Data[0]
	var m sandboxMessageJSON
	e.Secret("GET", "/sandbox/messages/"+first.ID, nil).Decode(t, &m)
	// Hand the same signed bytes, one word changed, to the sandbox's
	// mailer as a delivery would; the Return-Path and Received fields the
	// capture added are taken off first.
	_, signed, _ := strings.Cut(m.Raw, "\r\nDKIM-Signature: ")
	tampered := []byte("DKIM-Signature: " + strings.Replace(signed, "Original body", "Altered body", 1))
	res := e.App.Sandbox.Send(context.Background(), smtpout.Message{From: "hello@example.org", To: []string{"reader@example.com"}, Data: tampered})
	if len(res) != 1 || !res[0].Delivered {
		t.Fatalf("results %+v", res)
	}
	page := waitCaptured(t, e, 2)
	if page.Data[0].DKIM != "fail" || page.Data[1].DKIM != "pass" {
		t.Fatalf("dkim: newest %q, first %q", page.Data[0].DKIM, page.Data[1].DKIM)
	}
	// Unsigned bytes fail too.
	unsigned := []byte("From: a@example.org\r\nSubject: x\r\nMessage-ID: <x@example.org>\r\n\r\nhi\r\n")
	e.App.Sandbox.Send(context.Background(), smtpout.Message{From: "a@example.org", To: []string{"b@example.com"}, Data: unsigned})
	if got := waitCapturedAll(t, e); got != 3 {
		t.Fatalf("captured %d", got)
	}
}

// waitCapturedAll counts every captured message, of any project or none.
func waitCapturedAll(t *testing.T, e *webtest.Env) int {
	t.Helper()
	var n int
	if err := e.DB.Reader().QueryRow(context.Background(), `SELECT COUNT(*) FROM sandbox_messages WHERE dkim = 'fail' OR dkim = 'pass'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The list pages newest first with a cursor; a project sees only its own
// messages; a bad cursor is 400.
func TestSandboxListPagesNewestFirst(t *testing.T) {
	e := webtest.New(t, webtest.Options{Sandbox: true})
	sandboxDomain(t, e, "example.org")
	for i, subject := range []string{"one", "two", "three"} {
		sendOK(t, e, map[string]any{"to": "r@example.com", "from": "hello@example.org", "subject": subject, "body": "<p>x</p>"})
		waitCaptured(t, e, i+1)
		e.Clock.Advance(time.Second)
	}
	var p1, p2 sandboxPageJSON
	e.Secret("GET", "/sandbox/messages?limit=2", nil).Decode(t, &p1)
	if len(p1.Data) != 2 || !p1.HasMore || p1.Total != 3 || p1.Data[0].Subject != "three" || p1.Data[1].Subject != "two" {
		t.Fatalf("page 1: %+v", p1)
	}
	e.Secret("GET", "/sandbox/messages?limit=2&cursor="+p1.Cursor, nil).Decode(t, &p2)
	if len(p2.Data) != 1 || p2.HasMore || p2.Data[0].Subject != "one" {
		t.Fatalf("page 2: %+v", p2)
	}
	expectError(t, e.Secret("GET", "/sandbox/messages?cursor=nonsense", nil), 400, "BAD_REQUEST")

	// Another project's key and its members see none of them.
	ada := signupUser(t, e, "ada@example.com")
	other := ada.newProject("Other")
	r := ada.in(other.ID, "GET", "/sandbox/messages", nil)
	expectStatus(t, r, 200)
	if r.JSON()["total"] != float64(0) {
		t.Fatalf("another project's list: %s", r.Body)
	}
	expectError(t, ada.in(other.ID, "GET", "/sandbox/messages/"+p1.Data[0].ID, nil), 404, "NOT_FOUND")
	expectError(t, e.Do("GET", "/sandbox/messages/"+p1.Data[0].ID, *other.Secret, nil), 404, "NOT_FOUND")
	expectError(t, e.Secret("GET", "/sandbox/messages/nope", nil), 404, "NOT_FOUND")
}

// The viewer's document: the message's HTML, links opening in a new tab,
// under a policy of its own; for a member's session only.
func TestSandboxViewIsForMembersUnderItsOwnPolicy(t *testing.T) {
	e := webtest.New(t, webtest.Options{Sandbox: true})
	ada := signupUser(t, e, "ada@example.com")
	p := ada.newProject("Mine")
	r := e.Do("POST", "/domains", *p.Secret, map[string]any{"domain": "example.org"})
	expectStatus(t, r, 201)
	r = e.Do("POST", "/v1/send", *p.Secret, map[string]any{"to": "r@example.com", "from": "hello@example.org", "subject": "s",
		"body": `<html><head><title>t</title></head><body><a href="https://example.com/">go</a></body></html>`})
	expectStatus(t, r, 200)
	var page sandboxPageJSON
	deadline := time.Now().Add(30 * time.Second)
	for len(page.Data) == 0 && time.Now().Before(deadline) {
		ada.in(p.ID, "GET", "/sandbox/messages", nil).Decode(t, &page)
		time.Sleep(10 * time.Millisecond)
	}
	if page.Total != 1 {
		t.Fatalf("list through the session: %+v", page)
	}
	view := "/sandbox/messages/" + page.Data[0].ID + "/view"
	r = ada.do("GET", view, nil)
	expectStatus(t, r, 200)
	body := string(r.Body)
	if !strings.Contains(body, `<head><base target="_blank"><title>`) || !strings.Contains(body, ">go</a>") {
		t.Errorf("view: %s", body)
	}
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "sandbox allow-popups allow-popups-to-escape-sandbox") || !strings.Contains(csp, "default-src 'none'") ||
		strings.Contains(csp, "script-src") || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("headers %v", r.Header)
	}
	// Not a member: 404; no session: 401; the key is no session.
	bob := signupUser(t, e, "bob@example.com")
	expectError(t, bob.do("GET", view, nil), 404, "NOT_FOUND")
	expectError(t, e.Do("GET", view, "", nil), 401, "UNAUTHORIZED")
	expectError(t, e.Do("GET", view, *p.Secret, nil), 401, "UNAUTHORIZED")
}

// Platform mail in the sandbox is captured too, in the hidden system
// project: the administrator reads it there, nobody else.
func TestSandboxPlatformMailIsTheAdministrators(t *testing.T) {
	e := webtest.New(t, webtest.Options{Sandbox: true, Accounts: accounts.Settings{SystemFrom: "Herald <no-reply@herald.test>"}})
	ada := signupUser(t, e, "ada@example.com") // before system mail works: verified at once
	p := ada.newProject("Mine")
	expectStatus(t, e.Do("POST", "/domains", *p.Secret, map[string]any{"domain": "herald.test"}), 201)
	expectStatus(t, e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": "ada@example.com"}), 200)
	var page sandboxPageJSON
	deadline := time.Now().Add(30 * time.Second)
	for len(page.Data) == 0 && time.Now().Before(deadline) {
		ada.in(p.ID, "GET", "/sandbox/messages", nil).Decode(t, &page)
		time.Sleep(10 * time.Millisecond)
	}
	if page.Total != 1 || page.Data[0].Subject != "Reset your password" || page.Data[0].DKIM != "pass" {
		t.Fatalf("the administrator's list: %+v", page)
	}
	if !bytes.Contains(ada.do("GET", "/sandbox/messages/"+page.Data[0].ID+"/view", nil).Body, []byte("/app/reset-password?token=")) {
		t.Error("the administrator cannot view the reset mail")
	}
	if _, err := e.App.Accounts.CreateUser(context.Background(), "bob@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	bob := login(t, e, "bob@example.com")
	q := bob.newProject("Bob's")
	if r := bob.in(q.ID, "GET", "/sandbox/messages", nil); r.JSON()["total"] != float64(0) {
		t.Errorf("another user sees platform mail: %s", r.Body)
	}
	expectError(t, bob.do("GET", "/sandbox/messages/"+page.Data[0].ID+"/view", nil), 404, "NOT_FOUND")
}

// Without --sandbox the mailbox does not exist.
func TestSandboxOffIsNotFound(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	if cfg := configOf(t, e); cfg["sandbox"] != false {
		t.Fatalf("/config: %v", cfg)
	}
	expectError(t, e.Secret("GET", "/sandbox/messages", nil), 404, "NOT_FOUND")
	expectError(t, e.Secret("GET", "/sandbox/messages/x", nil), 404, "NOT_FOUND")
	r := e.Secret("POST", "/domains", map[string]any{"domain": "example.org"})
	if r.JSON()["verified"] != false {
		t.Fatalf("a domain is verified without DNS outside the sandbox: %s", r.Body)
	}
}
