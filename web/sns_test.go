package web_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/sns"
	"github.com/heraldmail/herald/app/sns/snstest"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// snsEnv is a Herald whose SNS certificates come from a test SNS.
type snsEnv struct {
	*webtest.Env
	sns *snstest.SNS
}

func newSNSEnv(t *testing.T) *snsEnv {
	t.Helper()
	fake := snstest.New(t, webtest.Start)
	e := webtest.New(t, webtest.Options{SNSFetcher: fake})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	return &snsEnv{Env: e, sns: fake}
}

func (e *snsEnv) post(body []byte) webtest.Response {
	return e.Do("POST", "/webhooks/sns", "", body, "Content-Type", "text/plain; charset=UTF-8",
		"X-Amz-Sns-Message-Type", "Notification")
}

// sendForSES sends an email to a subscribed contact and waits for its
// delivery; it returns the email as stored.
func (e *snsEnv) sendForSES(t *testing.T, to string) storage.Email {
	t.Helper()
	sent := sendOK(t, e.Env, map[string]any{"to": to, "from": "hello@herald.test",
		"subject": "News", "body": "<p>Hi</p>", "subscribed": true})[0].(map[string]any)
	return waitStatus(t, e.Env, sent["email"].(string), storage.EmailDelivered)
}

// sesNotification is an SES notification about em, as SES writes it.
func sesNotification(kind string, em storage.Email, body map[string]any) map[string]any {
	n := map[string]any{
		"notificationType": kind,
		"mail": map[string]any{
			"timestamp": "2026-01-15T12:00:00.000Z", "messageId": "0100018d-ses-own-id", "source": em.Sender,
			"destination": []string{em.Recipient},
			"headers":     []map[string]string{{"name": "From", "value": em.Sender}, {"name": "Message-ID", "value": em.MessageID}},
		},
	}
	for k, v := range body {
		n[k] = v
	}
	return n
}

func TestSNSSubscriptionConfirmation(t *testing.T) {
	e := newSNSEnv(t)
	subscribe := "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:eu-west-1:1:herald&Token=tok"
	m := &sns.Message{Type: sns.TypeSubscriptionConfirmation, MessageID: "c1", Token: "tok",
		TopicArn: "arn:aws:sns:eu-west-1:1:herald", Message: "You have chosen to subscribe", SubscribeURL: subscribe,
		Timestamp: "2026-01-15T12:00:00.000Z"}
	e.sns.Sign(t, m, "1")
	expectStatus(t, e.post(snstest.Marshal(t, m)), 200)
	if !slices.Contains(e.sns.Fetched(), subscribe) {
		t.Fatalf("subscription not confirmed; fetched %v", e.sns.Fetched())
	}

	// A SubscribeURL off AWS is never visited, however well signed.
	m.SubscribeURL = "https://collector.evil.test/?steal"
	e.sns.Sign(t, m, "1")
	expectError(t, e.post(snstest.Marshal(t, m)), 400, "BAD_REQUEST")
	if slices.Contains(e.sns.Fetched(), m.SubscribeURL) {
		t.Fatal("visited a SubscribeURL off AWS")
	}
}

func TestSNSPermanentBounce(t *testing.T) {
	e := newSNSEnv(t)
	em := e.sendForSES(t, "gone@example.net")
	bounce := sesNotification("Bounce", em, map[string]any{"bounce": map[string]any{
		"bounceType": "Permanent", "bounceSubType": "General",
		"bouncedRecipients": []map[string]any{{"emailAddress": em.Recipient, "action": "failed",
			"status": "5.1.1", "diagnosticCode": "smtp; 550 5.1.1 user unknown"}},
	}})
	for range 2 { // SNS delivers at least once
		expectStatus(t, e.post(e.sns.Notification(t, bounce)), 200)
	}
	if n := countString(e.sns.Fetched(), snstest.CertURL); n != 1 {
		t.Errorf("certificate fetched %d times, want once", n)
	}
	got, _ := storage.EmailByID(context.Background(), e.DB.Reader(), em.ID)
	if got.Status != storage.EmailBounced || got.LastResponse != "smtp; 550 5.1.1 user unknown" {
		t.Fatalf("email after SES bounce: %s %q", got.Status, got.LastResponse)
	}
	evs := contactEvents(t, e.Env, em.ContactID)
	if n := countNamed(evs, "email.bounce"); n != 1 {
		t.Fatalf("%d email.bounce events", n)
	}
	b := eventNamed(t, evs, "email.bounce")
	if b.Data["source"] != "ses" || b.Data["permanent"] != true || b.Data["status"] != "5.1.1" || b.Data["emailId"] != em.ID {
		t.Errorf("email.bounce data = %v", b.Data)
	}
	if u := eventNamed(t, evs, "contact.unsubscribed"); u.Data["reason"] != "bounce" {
		t.Errorf("contact.unsubscribed = %v", u.Data)
	}
}

func TestSNSTransientBounceChangesNothing(t *testing.T) {
	e := newSNSEnv(t)
	em := e.sendForSES(t, "full@example.net")
	n := sesNotification("Bounce", em, map[string]any{"bounce": map[string]any{
		"bounceType": "Transient", "bounceSubType": "MailboxFull"}})
	expectStatus(t, e.post(e.sns.Notification(t, n)), 200)
	got, _ := storage.EmailByID(context.Background(), e.DB.Reader(), em.ID)
	if got.Status != storage.EmailDelivered || countNamed(contactEvents(t, e.Env, em.ContactID), "email.bounce") != 0 {
		t.Fatalf("transient bounce changed the email: %s", got.Status)
	}
}

func TestSNSComplaint(t *testing.T) {
	e := newSNSEnv(t)
	em := e.sendForSES(t, "angry@example.net")
	n := sesNotification("Complaint", em, map[string]any{"complaint": map[string]any{
		"complainedRecipients": []map[string]any{{"emailAddress": em.Recipient}}, "complaintFeedbackType": "abuse"}})
	expectStatus(t, e.post(e.sns.Notification(t, n)), 200)
	got, _ := storage.EmailByID(context.Background(), e.DB.Reader(), em.ID)
	if got.ComplainedAt == nil {
		t.Fatal("complainedAt not set")
	}
	evs := contactEvents(t, e.Env, em.ContactID)
	if c := eventNamed(t, evs, "email.complaint"); c.Data["source"] != "ses" || c.Data["feedbackType"] != "abuse" {
		t.Errorf("email.complaint data = %v", c.Data)
	}
	if u := eventNamed(t, evs, "contact.unsubscribed"); u.Data["reason"] != "complaint" {
		t.Errorf("contact.unsubscribed = %v", u.Data)
	}
}

// In relay mode an accepted email is SENT; SES's delivery notification
// makes it DELIVERED, once.
func TestSNSDeliveryOfARelayedEmail(t *testing.T) {
	e := newSNSEnv(t)
	em := e.sendForSES(t, "ada@example.net")
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		return tx.SetEmailStatus(context.Background(), em.ID, storage.EmailSent, "250 Ok queued", webtest.Start)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := countNamed(contactEvents(t, e.Env, em.ContactID), "email.delivery")
	n := sesNotification("Delivery", em, map[string]any{"delivery": map[string]any{
		"smtpResponse": "250 2.0.0 OK", "recipients": []string{em.Recipient}}})
	for range 2 {
		expectStatus(t, e.post(e.sns.Notification(t, n)), 200)
	}
	got, _ := storage.EmailByID(context.Background(), e.DB.Reader(), em.ID)
	if got.Status != storage.EmailDelivered || got.LastResponse != "250 2.0.0 OK" {
		t.Fatalf("email after SES delivery: %s %q", got.Status, got.LastResponse)
	}
	if after := countNamed(contactEvents(t, e.Env, em.ContactID), "email.delivery"); after != before+1 {
		t.Errorf("email.delivery events: %d before, %d after", before, after)
	}
}

func TestSNSRefusals(t *testing.T) {
	e := newSNSEnv(t)
	em := e.sendForSES(t, "ada@example.net")
	bounce := sesNotification("Bounce", em, map[string]any{"bounce": map[string]any{"bounceType": "Permanent"}})

	forged := &sns.Message{}
	r := e.sns.Notification(t, bounce)
	if err := json.Unmarshal(r, forged); err != nil {
		t.Fatal(err)
	}
	forged.Message = strings.Replace(forged.Message, "Permanent", "Permanent ", 1)
	expectError(t, e.post(snstest.Marshal(t, forged)), 403, "FORBIDDEN")

	elsewhere := snstest.New(t, webtest.Start) // a key SNS never had
	offSNS := &sns.Message{Type: sns.TypeNotification, MessageID: "m", TopicArn: "arn:t", Message: forged.Message, Timestamp: "t"}
	elsewhere.Sign(t, offSNS, "2")
	offSNS.SigningCertURL = "https://certs.evil.test/SimpleNotificationService-x.pem"
	expectError(t, e.post(snstest.Marshal(t, offSNS)), 403, "FORBIDDEN")

	expectError(t, e.post([]byte("{not json")), 400, "BAD_REQUEST")
	expectError(t, e.post([]byte(`{"Type":"Notification"}`)), 400, "BAD_REQUEST")

	// Authentic, but about nothing Herald sent: accepted and ignored.
	other := sesNotification("Bounce", storage.Email{MessageID: "<unknown@elsewhere.test>"}, map[string]any{
		"bounce": map[string]any{"bounceType": "Permanent"}})
	expectStatus(t, e.post(e.sns.Notification(t, other)), 200)
	expectStatus(t, e.post(e.sns.Notification(t, "Successfully validated SNS topic for Amazon SES event publishing.")), 200)

	got, _ := storage.EmailByID(context.Background(), e.DB.Reader(), em.ID)
	if got.Status != storage.EmailDelivered {
		t.Fatalf("a refused notification changed the email: %s", got.Status)
	}
}

func countString(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}
