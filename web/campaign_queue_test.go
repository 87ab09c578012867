package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// A campaign's emails are their own delivery queue entries
// (app/campaign_queue.go): these tests hold that queue to the promises of
// the jobs it replaced.

// queuedEmails counts the emails still in the queue (due_at set).
func queuedEmails(t *testing.T, e *webtest.Env) int {
	t.Helper()
	var n int
	if err := e.DB.Reader().QueryRow(context.Background(), `SELECT count(*) FROM emails WHERE due_at IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// deliveryLane returns the delivery lane's queued and running counts, as
// /metrics reports them.
func deliveryLane(t *testing.T, e *webtest.Env) (queued, running int) {
	t.Helper()
	counts, err := e.App.Jobs().Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		switch {
		case c.Lane != app.DeliveryLane:
		case c.State == "queued":
			queued = c.N
		case c.State == "running":
			running = c.N
		}
	}
	return queued, running
}

// receivedOnce checks that the sink got exactly one message for each of
// want recipients.
func receivedOnce(t *testing.T, e *webtest.Env, want int) {
	t.Helper()
	got := map[string]int{}
	for _, m := range e.Sink.Messages() {
		for _, to := range m.To {
			got[to]++
		}
	}
	if len(got) != want {
		t.Fatalf("%d recipients received mail, want %d", len(got), want)
	}
	for to, n := range got {
		if n != 1 {
			t.Fatalf("%s received %d messages", to, n)
		}
	}
}

// A campaign's deliveries write no job row, each recipient gets one
// message, every email ends DELIVERED out of the queue, and nothing is sent
// again however far the clock moves.
func TestCampaignDeliversEachEmailOnceWithoutJobRows(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 20)
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitCampaign(t, e, c.ID, "SENT")
	e.Sink.WaitCount(want, 10*time.Second)
	e.Clock.Advance(48 * time.Hour)
	drainDeliveries(t, e)
	receivedOnce(t, e, want)
	var jobs, delivered int
	ctx := context.Background()
	_ = e.DB.Reader().QueryRow(ctx, `SELECT count(*) FROM jobs WHERE kind IN (?, ?)`, messaging.JobDeliver, messaging.JobDeliverCampaign).Scan(&jobs)
	_ = e.DB.Reader().QueryRow(ctx, `SELECT count(*) FROM emails WHERE campaign_id = ? AND status = 'DELIVERED' AND attempts = 1`,
		c.ID).Scan(&delivered)
	if jobs != 0 || delivered != want || queuedEmails(t, e) != 0 {
		t.Fatalf("%d delivery jobs, %d delivered at the first attempt, %d still queued", jobs, delivered, queuedEmails(t, e))
	}
}

// An attempt whose worker died (claimed, then nothing) holds its email
// until its lease runs out; the email is then claimed again and delivered,
// once, the dead attempt counted.
func TestCampaignEmailOfADeadWorkerIsDeliveredAfterItsLease(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 5)
	for i := range 5 {
		e.Sink.TempFail(fmt.Sprintf("c%03d@example.net", i), 1)
	}
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitPending(t, e, c.ID, want)
	retryAt, ok, err := e.App.Jobs().NextRun(context.Background(), messaging.JobDeliverCampaign)
	if err != nil || !ok {
		t.Fatalf("no retry queued: %v", err)
	}
	// A worker claims every retry at its time and dies.
	const lease = 10 * time.Minute
	var claimed []storage.QueuedEmail
	err = e.DB.Write(context.Background(), func(tx *storage.Tx) (err error) {
		claimed, err = tx.ClaimQueuedEmails(context.Background(), retryAt, retryAt.Add(lease), 100)
		return err
	})
	if err != nil || len(claimed) != want {
		t.Fatalf("the dying worker claimed %d: %v", len(claimed), err)
	}
	if queued, running := deliveryLane(t, e); queued != 0 || running != want {
		t.Fatalf("delivery lane while leased: %d queued, %d running", queued, running)
	}
	e.Clock.Advance(retryAt.Sub(e.Clock.Now()) + lease)
	waitCampaign(t, e, c.ID, "SENT")
	e.Sink.WaitCount(want, 10*time.Second)
	drainDeliveries(t, e)
	receivedOnce(t, e, want)
	var third int
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT count(*) FROM emails WHERE campaign_id = ?
		AND status = 'DELIVERED' AND attempts = 3 AND due_at IS NULL`, c.ID).Scan(&third)
	if third != want {
		t.Fatalf("%d of %d delivered at their third attempt", third, want)
	}
}

// A worker that dies during an email's last attempt leaves it to be given
// up, not sent: FAILED with the reason, counted in its campaign, which ends.
func TestCampaignEmailWhoseLastAttemptDiedFails(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	createContact(t, e, map[string]any{"email": "ada@example.net", "subscribed": true})
	e.Sink.TempFail("ada@example.net", 1)
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitPending(t, e, c.ID, 1)
	maxAttempts := 0
	for _, k := range e.App.Jobs().Kinds() {
		if k.Name == messaging.JobDeliverCampaign {
			maxAttempts = k.Retry.MaxAttempts
		}
	}
	// Workers claim it at every lease's end and die, without the clock
	// moving, until its last attempt.
	at, _, _ := e.App.Jobs().NextRun(context.Background(), messaging.JobDeliverCampaign)
	for attempts := 1; attempts < maxAttempts; {
		err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
			got, err := tx.ClaimQueuedEmails(context.Background(), at, at.Add(time.Minute), 1)
			if err == nil && len(got) == 1 {
				attempts = got[0].Attempts
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Minute)
	}
	e.Clock.Advance(at.Sub(e.Clock.Now()))
	waitCampaign(t, e, c.ID, "SENT")
	var st map[string]any
	e.Secret("GET", "/campaigns/"+c.ID+"/stats", nil).Decode(t, &st)
	var em storage.Email
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT last_response FROM emails`).Scan(&em.LastResponse)
	if st["failedCount"] != float64(1) || e.Sink.Count() != 0 || em.LastResponse != "gave up: the worker stopped during the last attempt" {
		t.Fatalf("stats %v, %d delivered, reason %q", st, e.Sink.Count(), em.LastResponse)
	}
	if queuedEmails(t, e) != 0 {
		t.Fatal("the failed email is still queued")
	}
}

// The delivery lane's metrics count a campaign's waiting emails as queued
// deliveries, and a cancel takes them out of the queue at once: none is
// sent after it, however far the clock moves.
func TestCancelTakesCampaignEmailsOutOfTheQueue(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	want := seedAudience(t, e, 10)
	for i := range 10 {
		e.Sink.TempFail(fmt.Sprintf("c%03d@example.net", i), 1)
	}
	c := createCampaign(t, e, campaignBody(nil))
	sendNow(t, e, c.ID)
	waitPending(t, e, c.ID, want)
	if queued, running := deliveryLane(t, e); queued != want || running != 0 {
		t.Fatalf("delivery lane before the cancel: %d queued, %d running, want %d queued", queued, running, want)
	}
	e.Clock.Advance(time.Minute)
	if age, err := e.App.MetricsSource().OldestQueuedDelivery(context.Background()); err != nil || age < time.Minute {
		t.Fatalf("oldest queued delivery: %v %v", age, err)
	}
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/cancel", nil), 200)
	if queued, running := deliveryLane(t, e); queued != 0 || running != 0 || queuedEmails(t, e) != 0 {
		t.Fatalf("delivery lane after the cancel: %d queued, %d running", queued, running)
	}
	if age, err := e.App.MetricsSource().OldestQueuedDelivery(context.Background()); err != nil || age != 0 {
		t.Fatalf("oldest queued delivery after the cancel: %v %v", age, err)
	}
	e.Clock.Advance(48 * time.Hour)
	drainDeliveries(t, e)
	if n := e.Sink.Count(); n != 0 {
		t.Fatalf("%d delivered after the cancel", n)
	}
}
