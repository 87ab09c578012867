package web_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// inboundEnv is a Herald with an inbound host, a verified sending domain,
// mail to example.net routed to the sink, and the inbound SMTP listener
// running on loopback.
type inboundEnv struct {
	*webtest.Env
	listener string // host:port of smtpin
}

func newInboundEnv(t *testing.T) *inboundEnv {
	t.Helper()
	e := webtest.New(t, webtest.Options{InboundHost: "mx.herald.test"})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := smtpin.New(smtpin.Config{Hostname: "mx.herald.test"}, e.App.Messaging.BounceMailbox(), slog.New(slog.DiscardHandler))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Close)
	return &inboundEnv{Env: e, listener: ln.Addr().String()}
}

// delivered is an email that reached the sink, with its return path.
type delivered struct {
	emailID, contactID, recipient, returnPath string
}

// sendDelivered sends a marketing-style email to a subscribed contact and
// waits until the sink has it.
func (e *inboundEnv) sendDelivered(t *testing.T, to string) delivered {
	t.Helper()
	sent := sendOK(t, e.Env, map[string]any{"to": to, "from": "hello@herald.test",
		"subject": "News", "body": "<p>Hi</p>", "subscribed": true})[0].(map[string]any)
	d := delivered{emailID: sent["email"].(string), contactID: sent["contact"].(map[string]any)["id"].(string), recipient: to}
	waitStatus(t, e.Env, d.emailID, storage.EmailDelivered)
	for _, m := range e.Sink.Messages() {
		if len(m.To) == 1 && m.To[0] == to {
			d.returnPath = m.From
		}
	}
	if !strings.HasPrefix(d.returnPath, "bounce+") || !strings.HasSuffix(d.returnPath, "@bounce.herald.test") {
		t.Fatalf("return path %q is not a VERP address", d.returnPath)
	}
	return d
}

// mailTo delivers a message to the listener as a remote MTA would, from
// the null sender.
func (e *inboundEnv) mailTo(t *testing.T, rcpt, msg string) error {
	t.Helper()
	c, err := smtp.Dial(e.listener)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("", nil); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt, nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte(strings.ReplaceAll(msg, "\n", "\r\n"))); err != nil {
		return err
	}
	return w.Close()
}

func (e *inboundEnv) email(t *testing.T, id string) storage.Email {
	t.Helper()
	em, err := storage.EmailByID(context.Background(), e.DB.Reader(), id)
	if err != nil {
		t.Fatal(err)
	}
	return em
}

// dsnFor is a delivery status notification about d's message.
func dsnFor(d delivered, action, status, diagnostic string) string {
	return fmt.Sprintf(`From: MAILER-DAEMON@mx.example.net
To: %s
Subject: Delivery Status Notification
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="dsn"

--dsn
Content-Type: text/plain

Your message could not be delivered.
--dsn
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; %s
Action: %s
Status: %s
Diagnostic-Code: smtp; %s
--dsn
Content-Type: text/rfc822-headers

From: hello@herald.test
Subject: News
--dsn--
`, d.returnPath, d.recipient, action, status, diagnostic)
}

func eventNamed(t *testing.T, evs []eventJSON, name string) eventJSON {
	t.Helper()
	for _, ev := range evs {
		if ev.Name == name {
			return ev
		}
	}
	t.Fatalf("no %s event in %v", name, eventNames(evs))
	return eventJSON{}
}

func TestInboundDSNBouncesTheEmail(t *testing.T) {
	e := newInboundEnv(t)
	d := e.sendDelivered(t, "gone@example.net")
	msg := dsnFor(d, "failed", "5.1.1", "550 5.1.1 <gone@example.net>: user unknown")
	if err := e.mailTo(t, d.returnPath, msg); err != nil {
		t.Fatal(err)
	}
	em := e.email(t, d.emailID)
	if em.Status != storage.EmailBounced || em.BouncedAt == nil ||
		em.LastResponse != "smtp; 550 5.1.1 <gone@example.net>: user unknown" {
		t.Fatalf("email after DSN: %s %v %q", em.Status, em.BouncedAt, em.LastResponse)
	}
	evs := contactEvents(t, e.Env, d.contactID)
	bounce := eventNamed(t, evs, "email.bounce")
	want := map[string]any{"emailId": d.emailID, "permanent": true, "status": "5.1.1", "source": "dsn",
		"diagnosticCode": "smtp; 550 5.1.1 <gone@example.net>: user unknown"}
	for k, v := range want {
		if bounce.Data[k] != v {
			t.Errorf("email.bounce data[%s] = %v, want %v", k, bounce.Data[k], v)
		}
	}
	if unsub := eventNamed(t, evs, "contact.unsubscribed"); unsub.Data["reason"] != "bounce" {
		t.Errorf("contact.unsubscribed = %v", unsub.Data)
	}
	if getContact(t, e.Env, d.contactID).Subscribed {
		t.Error("contact still subscribed after a bounce")
	}
	// The same DSN again (a retried delivery) records nothing more.
	if err := e.mailTo(t, d.returnPath, msg); err != nil {
		t.Fatal(err)
	}
	if n := countNamed(contactEvents(t, e.Env, d.contactID), "email.bounce"); n != 1 {
		t.Errorf("%d email.bounce events after the DSN came twice", n)
	}
}

// A delay notice, a success notice and an expiry after temporary failures
// are no bounce.
func TestInboundNonPermanentDSNChangesNothing(t *testing.T) {
	e := newInboundEnv(t)
	d := e.sendDelivered(t, "slow@example.net")
	for _, c := range []struct{ action, status string }{
		{"delayed", "4.4.7"}, {"delivered", "2.0.0"}, {"failed", "4.4.7"},
	} {
		if err := e.mailTo(t, d.returnPath, dsnFor(d, c.action, c.status, "451 try later")); err != nil {
			t.Fatalf("%s: %v", c.action, err)
		}
	}
	assertUntouched(t, e, d)
}

func assertUntouched(t *testing.T, e *inboundEnv, d delivered) {
	t.Helper()
	if em := e.email(t, d.emailID); em.Status != storage.EmailDelivered || em.ComplainedAt != nil {
		t.Errorf("email changed: %s complained %v", em.Status, em.ComplainedAt)
	}
	evs := contactEvents(t, e.Env, d.contactID)
	for _, name := range []string{"email.bounce", "email.complaint", "contact.unsubscribed"} {
		if countNamed(evs, name) != 0 {
			t.Errorf("unexpected %s in %v", name, eventNames(evs))
		}
	}
	if !getContact(t, e.Env, d.contactID).Subscribed {
		t.Error("contact unsubscribed")
	}
}

func TestInboundAutoReplyIsIgnored(t *testing.T) {
	e := newInboundEnv(t)
	d := e.sendDelivered(t, "away@example.net")
	reply := "From: away@example.net\nTo: " + d.returnPath + "\nSubject: Out of office: News\n" +
		"Auto-Submitted: auto-replied\n\nI am away until Monday; your mail failed to move me.\n"
	if err := e.mailTo(t, d.returnPath, reply); err != nil {
		t.Fatalf("auto-reply refused: %v", err)
	}
	assertUntouched(t, e, d)
}

func TestInboundARFComplaint(t *testing.T) {
	e := newInboundEnv(t)
	d := e.sendDelivered(t, "angry@example.net")
	em := e.email(t, d.emailID)
	arf := fmt.Sprintf(`From: fbl@example.net
To: %s
Subject: Abuse report
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="arf"

--arf
Content-Type: text/plain

This is an abuse report.
--arf
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: ExampleFBL/1.0
Version: 1
Original-Mail-From: <%s>
Original-Rcpt-To: <%s>

--arf
Content-Type: message/rfc822

Message-ID: %s
From: hello@herald.test
Subject: News

Hi
--arf--
`, d.returnPath, d.returnPath, d.recipient, em.MessageID)
	for range 2 {
		if err := e.mailTo(t, d.returnPath, arf); err != nil {
			t.Fatal(err)
		}
	}
	em = e.email(t, d.emailID)
	if em.ComplainedAt == nil || em.Status != storage.EmailDelivered {
		t.Fatalf("email after complaint: %s complained %v", em.Status, em.ComplainedAt)
	}
	evs := contactEvents(t, e.Env, d.contactID)
	if n := countNamed(evs, "email.complaint"); n != 1 {
		t.Fatalf("%d email.complaint events after two reports", n)
	}
	c := eventNamed(t, evs, "email.complaint")
	if c.Data["emailId"] != d.emailID || c.Data["source"] != "arf" || c.Data["feedbackType"] != "abuse" {
		t.Errorf("email.complaint data = %v", c.Data)
	}
	if unsub := eventNamed(t, evs, "contact.unsubscribed"); unsub.Data["reason"] != "complaint" {
		t.Errorf("contact.unsubscribed = %v", unsub.Data)
	}
}

func TestInboundRefusesEveryOtherRecipient(t *testing.T) {
	e := newInboundEnv(t)
	d := e.sendDelivered(t, "ada@example.net")
	local, domain, _ := strings.Cut(d.returnPath, "@")
	last := local[len(local)-1]
	flipped := "0"
	if last == '0' {
		flipped = "1"
	}
	id, mac, _ := strings.Cut(strings.TrimPrefix(local, "bounce+"), "-")
	for _, rcpt := range []string{
		local[:len(local)-1] + flipped + "@" + domain,                  // a forged MAC
		"bounce+" + id + "@" + domain,                                  // no MAC
		"bounce+" + strings.Repeat("0", 32) + "-" + mac + "@" + domain, // another email's id
		local + "@bounce.other.test",                                   // a genuine token at a domain not served
		"postmaster@bounce.other.test",
		"ada@example.net", // relaying
	} {
		err := e.mailTo(t, rcpt, dsnFor(d, "failed", "5.1.1", "550 user unknown"))
		var se *smtp.SMTPError
		if !errors.As(err, &se) || se.Code != 550 {
			t.Errorf("RCPT %s: %v, want 550", rcpt, err)
		}
	}
	assertUntouched(t, e, d)
	// The genuine return path still works, upper-cased as some MTAs do.
	if err := e.mailTo(t, strings.ToUpper(d.returnPath), dsnFor(d, "failed", "5.1.1", "550 user unknown")); err != nil {
		t.Fatal(err)
	}
	if em := e.email(t, d.emailID); em.Status != storage.EmailBounced {
		t.Errorf("status %s after a DSN to the upper-cased return path", em.Status)
	}
}
