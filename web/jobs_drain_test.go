package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// drainDeliveries runs every delivery job to its end, moving the fake
// clock to each retry that is due later, until none is queued or running.
// Every send is an attempt of such a job, so a test that asserts nothing
// was (or will be) delivered checks after this, instead of after a sleep.
func drainDeliveries(t *testing.T, e *webtest.Env) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// A campaign's emails are their own queue entries (due_at set).
		var n int
		if err := e.DB.Reader().QueryRow(ctx, `SELECT (SELECT count(*) FROM jobs WHERE kind = ? AND state IN ('queued', 'active'))
			+ (SELECT count(*) FROM emails WHERE due_at IS NOT NULL)`, messaging.JobDeliver).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		for _, kind := range []string{messaging.JobDeliver, messaging.JobDeliverCampaign} {
			next, ok, err := e.App.Jobs().NextRun(ctx, kind)
			if err != nil {
				t.Fatal(err)
			}
			if now := e.Clock.Now(); ok && next.After(now) {
				e.Clock.Advance(next.Sub(now))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still queued or running", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// scheduledJob returns the attempts and due time of a campaign's send job.
func scheduledJob(t *testing.T, e *webtest.Env, campaignID string) (attempts int, runAt time.Time) {
	t.Helper()
	var ms int64
	err := e.DB.Reader().QueryRow(context.Background(), `SELECT attempts, run_at FROM jobs WHERE kind = ? AND state = 'queued'
		AND json_extract(payload, '$.campaignId') = ?`, campaigns.JobCampaignSend, campaignID).Scan(&attempts, &ms)
	if err != nil {
		t.Fatalf("the campaign's send job: %v", err)
	}
	return attempts, storage.FromMillis(ms)
}
