package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

const simple = "From: orders@shop.example\r\nTo: ada@example.net\r\nSubject: Order\r\n\r\nThanks.\r\n"

// A public key, a wrong one and an empty one are refused 535 5.7.8 and
// counted against the address; an old key too, once regenerated.
func TestSubmissionKeys(t *testing.T) {
	e := startSubmission(t)
	old := e.Project.Secret
	for _, key := range []string{e.Project.Public, "sk_wrong", ""} {
		if _, err := e.login(t, false, key); code(err) != "535 5.7.8" {
			t.Errorf("key %q: %v, want 535 5.7.8", key, err)
		}
	}
	if n := e.failures.n["127.0.0.1"]; n != 3 {
		t.Fatalf("%d failures counted, want 3", n)
	}
	// A session that logged in before its key was regenerated cannot send
	// after: 451, and the next AUTH is refused.
	c := e.mustLogin(t, true)
	p, err := e.App.Accounts.RegenerateKeys(context.Background(), e.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := submit(c, "orders@shop.example", []string{"ada@example.net"}, simple); code(err) != "451 4.3.0" {
		t.Fatalf("submit after the key changed: %v, want 451 4.3.0", err)
	}
	if _, err := e.login(t, false, old); code(err) != "535 5.7.8" {
		t.Fatalf("old key: %v", err)
	}
	e.Project = p
	mustSubmit(t, e.mustLogin(t, false), "orders@shop.example", []string{"ada@example.net"}, simple)
}

// MAIL FROM and the From field must be at a verified domain of the
// project: 550 5.7.1 naming the domain, and nothing is sent.
func TestSubmissionForeignSender(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	err := c.Mail("someone@elsewhere.example", nil)
	if code(err) != "550 5.7.1" || !strings.Contains(err.Error(), "elsewhere.example") {
		t.Fatalf("foreign MAIL FROM: %v", err)
	}
	_ = c.Reset()
	msg := strings.Replace(simple, "From: orders@shop.example", "From: Boss <boss@elsewhere.example>", 1)
	_, err = submit(c, "orders@shop.example", []string{"ada@example.net"}, msg)
	if code(err) != "550 5.7.1" || !strings.Contains(err.Error(), "elsewhere.example") {
		t.Fatalf("foreign From field: %v", err)
	}
	// A second From address at a foreign domain is refused too.
	_ = c.Reset()
	msg = strings.Replace(simple, "From: orders@shop.example", "From: orders@shop.example, x@elsewhere.example", 1)
	if _, err = submit(c, "orders@shop.example", []string{"ada@example.net"}, msg); code(err) != "550 5.7.1" {
		t.Fatalf("a foreign second From: %v", err)
	}
	if n := len(e.eventsOf(t, "email.sent")); n != 0 {
		t.Fatalf("%d emails made", n)
	}
}

// 50 recipients are one message of 50 emails; the 51st RCPT is refused
// 452 4.5.3.
func TestSubmissionFiftyOneRecipients(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	if err := c.Mail("orders@shop.example", nil); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		if err := c.Rcpt(fmt.Sprintf("r%d@example.net", i), nil); err != nil {
			t.Fatalf("recipient %d: %v", i, err)
		}
	}
	if err := c.Rcpt("r51@example.net", nil); code(err) != "452 4.5.3" {
		t.Fatalf("51st recipient: %v, want 452 4.5.3", err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, simple)
	resp, err := w.CloseWithResponse()
	if err != nil {
		t.Fatal(err)
	}
	if ids := strings.Split(strings.TrimPrefix(resp.StatusText, "2.0.0 queued as "), ","); len(ids) != 50 {
		t.Fatalf("250 %s", resp.StatusText)
	}
	e.received(t, 50)
}

// A message over 40 MB is refused 552 5.3.4, and the session goes on.
func TestSubmission41MB(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	if err := c.Mail("orders@shop.example", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("ada@example.net", nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 76) + "\r\n")
	_, _ = io.WriteString(w, simple)
	for written := 0; written < 41<<20; written += len(line) {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); code(err) != "552 5.3.4" {
		t.Fatalf("41 MB: %v, want 552 5.3.4", err)
	}
	mustSubmit(t, c, "orders@shop.example", []string{"ada@example.net"}, simple)
	if n := len(e.eventsOf(t, "email.sent")); n != 1 {
		t.Fatalf("%d emails, want 1", n)
	}
}

// The project's transactional cap counts submitted mail: a message whose
// recipients would pass it is refused whole, 452 4.3.1, with no email
// made; within the cap it is sent.
func TestSubmissionBillingCap(t *testing.T) {
	e := startSubmission(t)
	if _, err := e.App.Accounts.SetBillingLimits(context.Background(), e.owner(), map[string]json.RawMessage{
		"transactional": json.RawMessage("2"), "campaigns": json.RawMessage("null"),
		"workflows": json.RawMessage("null"), "inbound": json.RawMessage("null")}); err != nil {
		t.Fatal(err)
	}
	c := e.mustLogin(t, false)
	three := []string{"a@example.net", "b@example.net", "c@example.net"}
	if _, err := submit(c, "orders@shop.example", three, simple); code(err) != "452 4.3.1" {
		t.Fatalf("3 over a cap of 2: %v, want 452 4.3.1", err)
	}
	if n := len(e.eventsOf(t, "email.sent")); n != 0 {
		t.Fatalf("%d emails made by a refused message", n)
	}
	mustSubmit(t, c, "orders@shop.example", three[:2], simple)
	if _, err := submit(c, "orders@shop.example", three[2:], simple); code(err) != "452 4.3.1" {
		t.Fatalf("past the cap: %v, want 452 4.3.1", err)
	}
}

// What the message itself gets wrong is refused 554 5.6.0 with the reason,
// before any email is made: a line over 998 characters, no From field.
func TestSubmissionBadMessages(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	long := strings.Replace(simple, "Thanks.", strings.Repeat("y", 1200), 1)
	if _, err := submit(c, "orders@shop.example", []string{"ada@example.net"}, long); code(err) != "554 5.6.0" ||
		!strings.Contains(err.Error(), "998") {
		t.Fatalf("a long line: %v", err)
	}
	if _, err := submit(c, "orders@shop.example", []string{"ada@example.net"}, "Subject: x\r\n\r\nno from\r\n"); code(err) != "554 5.6.0" {
		t.Fatalf("no From: %v", err)
	}
	if n := len(e.eventsOf(t, "email.sent")); n != 0 {
		t.Fatalf("%d emails made", n)
	}
}
