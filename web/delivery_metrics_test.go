package web_test

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// A delivery given up at its attempt limit (here every worker dies during
// its attempt) counts in herald_deliveries_total{outcome="failed"}, as one
// given up by time does.
func TestDeliveryGivenUpAtItsAttemptLimitCountsFailed(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Options{})
	e := webtest.New(t, webtest.Options{NoWorkers: true, Metrics: m, MetricsToken: "tok"})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	emails := sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": "b"})
	id := emails[0].(map[string]any)["email"].(string)
	before := scrape(t, e, "tok")["herald_deliveries_total"].sum(map[string]string{"outcome": "failed"})
	dieEveryAttempt(t, e, messaging.JobDeliver)
	e.StartWorkers()
	waitStatus(t, e, id, storage.EmailFailed)
	// The counter moves when the write that failed the email commits,
	// which the API may show a moment before.
	deadline := time.Now().Add(10 * time.Second)
	for {
		after := scrape(t, e, "tok")
		got := after["herald_deliveries_total"].sum(map[string]string{"outcome": "failed"}) - before
		byDomain := after["herald_deliveries_by_domain_total"].sum(map[string]string{"outcome": "failed", "domain": "example.net"})
		if got == 1 && byDomain == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("herald_deliveries_total{failed} moved by %v (by domain %v), want 1", got, byDomain)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
