package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// Every job kind ends, after its last attempt, in a state the API shows.
// These drive each kind that works on an entity of its own to that point,
// by a failing handler or by workers that die during every attempt.

// dieEveryAttempt claims the queued job of kind as a worker would and lets
// its lease run out, attempt after attempt, as if each worker died (the
// Env runs no workers meanwhile). It returns the job, active on its last
// attempt with its lease run out.
func dieEveryAttempt(t *testing.T, e *webtest.Env, kind string) storage.Job {
	t.Helper()
	ctx := context.Background()
	for {
		var claimed []storage.Job
		now := e.Clock.Now()
		err := e.DB.Write(ctx, func(tx *storage.Tx) error {
			var err error
			claimed, err = tx.ClaimJobs(ctx, []string{kind}, now, now.Add(time.Minute), 1)
			return err
		})
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim %s: %v %v", kind, claimed, err)
		}
		e.Clock.Advance(time.Minute)
		if j := claimed[0]; j.Attempts >= j.MaxAttempts {
			return j
		}
	}
}

func TestImportWhoseWorkerDiesEveryAttemptIsFailed(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	id := jobID(t, upload(t, e, "file", "email\nada@example.com\n"))
	if j := dieEveryAttempt(t, e, audience.JobImportContacts); j.Attempts != 3 {
		t.Fatalf("import allowed %d attempts", j.Attempts)
	}
	e.StartWorkers()
	st := e.WaitJob("/contacts/import/" + id)
	if st["state"] != "failed" || st["failedReason"] != "the worker stopped during the last attempt" {
		t.Fatalf("status %v", st)
	}
}

func TestDeliveryWhoseWorkerDiesEveryAttemptFailsItsEmail(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	emails := sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": "b"})
	id := emails[0].(map[string]any)["email"].(string)
	dieEveryAttempt(t, e, messaging.JobDeliver)
	e.StartWorkers()
	em := waitStatus(t, e, id, storage.EmailFailed)
	if em.LastResponse != "gave up: the worker stopped during the last attempt" || e.Sink.Count() != 0 {
		t.Fatalf("email %+v, %d delivered", em, e.Sink.Count())
	}
}

// A delivery that cannot go on for another reason than the give-up time
// (here its stored bytes are gone) fails its email, and a campaign whose
// last email that was goes on to SENT, counting it failed.
func TestDeliveryThatCannotGoOnFailsItsEmail(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	createContact(t, e, map[string]any{"email": "ada@example.net", "subscribed": true})
	e.Sink.TempFail("ada@example.net", 1)
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitPending(t, e, c.ID, 1)
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		_, err := tx.Exec(context.Background(), `DELETE FROM email_bodies`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.AdvanceToRetry(messaging.JobDeliverCampaign)
	waitCampaign(t, e, c.ID, "SENT")
	var st map[string]any
	e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).Decode(t, &st)
	if st["failedCount"] != float64(1) || st["deliveredCount"] != float64(0) || e.Sink.Count() != 0 {
		t.Fatalf("stats %v, %d delivered", st, e.Sink.Count())
	}
	var em storage.Email
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT last_response FROM emails`).Scan(&em.LastResponse)
	if em.LastResponse != "gave up: the message's bytes are missing" {
		t.Fatalf("reason %q", em.LastResponse)
	}
}

// A fan-out that fails at every attempt (here its saved audience no longer
// reads) does not leave the campaign SENDING: with nothing queued it is a
// DRAFT again.
func TestCampaignSendThatKeepsFailingStops(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	seedAudience(t, e, 3)
	c := createCampaign(t, e, campaignBody(map[string]any{"audienceType": "FILTERED",
		"audienceCondition": cond(filter("email", "contains", "c00"))}))
	at := webtest.Start.Add(time.Hour)
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": at.Format(time.RFC3339)}), 200)
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		_, err := tx.Exec(context.Background(), `UPDATE campaigns SET audience_condition = '{"logic":"XOR"}'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Hour)
	deadline := time.Now().Add(20 * time.Second)
	for getCampaign(t, e, c.ID).Status != "DRAFT" {
		if time.Now().After(deadline) {
			t.Fatalf("campaign %+v", getCampaign(t, e, c.ID))
		}
		next, ok, err := storage.NextRunOfKind(context.Background(), e.DB.Reader(), campaigns.JobCampaignSend)
		if now := e.Clock.Now(); err == nil && ok && next.After(now) {
			e.Clock.Advance(next.Sub(now)) // the next retry
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := getCampaign(t, e, c.ID); got.ScheduledFor != nil || got.SentAt != nil || e.Sink.Count() != 0 {
		t.Fatalf("after giving up: %+v, %d sent", got, e.Sink.Count())
	}
}

// A fan-out whose worker dies during every attempt, after it queued
// emails, stops as a cancel would: CANCELLED, the queued emails withdrawn.
func TestCampaignSendWhoseWorkerDiesEveryAttemptIsCancelled(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	ada := createContact(t, e, map[string]any{"email": "ada@example.net", "subscribed": true})
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	// What a first batch would have committed: one email, waiting.
	now := e.Clock.Now()
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		return tx.InsertEmail(context.Background(), storage.Email{ID: "e1", ProjectID: e.Project.ID, ContactID: ada.ID,
			CampaignID: c.ID, MessageID: "<e1@herald.test>", Sender: "news@herald.test", Recipient: "ada@example.net",
			Marketing: true, Status: storage.EmailPending, CreatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	if j := dieEveryAttempt(t, e, campaigns.JobCampaignSend); j.Attempts != 10 {
		t.Fatalf("send allowed %d attempts", j.Attempts)
	}
	e.StartWorkers()
	waitCampaign(t, e, c.ID, "CANCELLED")
	var st map[string]any
	e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).Decode(t, &st)
	if st["cancelledCount"] != float64(1) {
		t.Fatalf("stats %v", st)
	}
}
