package app

import (
	"context"
	"fmt"
	"time"

	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/storage"
)

// Readiness checks, in the order /readyz lists them.
const (
	CheckDatabase   = "database"
	CheckDispatcher = "dispatcher"
	CheckMigrations = "migrations"
	CheckRelay      = "relay"
)

// Readiness is the state of each check: "ok", or what is wrong.
type Readiness struct {
	Ready  bool
	Checks map[string]string
}

// Ready checks that the database takes a write, the dispatcher runs, the
// migrations are current and the relay (when one is set) takes Herald's
// credentials.
func (a *App) Ready(ctx context.Context) Readiness {
	checks := map[string]string{}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := a.db.Write(wctx, func(tx *storage.Tx) error { return tx.ProbeWrite(wctx, a.now()) })
	checks[CheckDatabase] = problemOf(err, "the database does not take a write")
	if a.jobs.Running() {
		checks[CheckDispatcher] = "ok"
	} else {
		checks[CheckDispatcher] = "the job dispatcher is not running"
	}
	have, known, err := a.db.Versions(ctx)
	switch {
	case err != nil:
		checks[CheckMigrations] = problemOf(err, "the migration version cannot be read")
	case have != known:
		checks[CheckMigrations] = fmt.Sprintf("the database is at migration %d, this herald expects %d", have, known)
	default:
		checks[CheckMigrations] = "ok"
	}
	checks[CheckRelay] = "ok"
	if p := a.Messaging.RelayProblem(); p != "" {
		checks[CheckRelay] = p
	}
	r := Readiness{Ready: true, Checks: checks}
	for _, v := range checks {
		if v != "ok" {
			r.Ready = false
		}
	}
	return r
}

func problemOf(err error, what string) string {
	if err == nil {
		return "ok"
	}
	return what + ": " + err.Error()
}

// MetricsSource answers the metrics read at scrape time.
func (a *App) MetricsSource() metrics.Source { return metricsSource{a} }

type metricsSource struct{ a *App }

func (s metricsSource) JobCounts(ctx context.Context) ([]metrics.JobCount, error) {
	counts, err := s.a.jobs.Counts(ctx)
	out := make([]metrics.JobCount, len(counts))
	for i, c := range counts {
		out[i] = metrics.JobCount{Lane: c.Lane, State: c.State, N: c.N}
	}
	return out, err
}

func (s metricsSource) OldestQueuedDelivery(ctx context.Context) (time.Duration, error) {
	at, ok, err := storage.OldestWaitingJob(ctx, s.a.db.Reader(), messaging.JobDeliver)
	if err != nil {
		return 0, err
	}
	// A campaign's emails are their own queue entries (campaign_queue.go).
	email, queued, err := storage.OldestQueuedEmail(ctx, s.a.db.Reader())
	if err != nil {
		return 0, err
	}
	if queued && (!ok || email.Before(at)) {
		at, ok = email, true
	}
	if !ok {
		return 0, nil
	}
	return max(s.a.clock.Now().Sub(at), 0), nil
}
