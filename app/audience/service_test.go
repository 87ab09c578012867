package audience

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// newTestService builds audience over a fresh database with the services
// below it and a dispatcher for its own job kinds, as app.New would
// (tests inside a domain package cannot import app). The dispatcher is
// not running: a test claims the jobs it wants to run.
func newTestService(t *testing.T) (*Service, *clocktest.Fake, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clk := clocktest.NewFake(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC))
	return newTestServiceOn(t, db, clk), clk, db
}

func newTestServiceOn(t *testing.T, db *storage.DB, clk clock.Clock) *Service {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	var s *Service
	jobs, err := queue.New(queue.Options{DB: db, Clock: clk, Log: log, Lanes: []queue.Lane{{Name: "default"}},
		Kinds: []queue.Kind{{Name: JobImportContacts, Lane: "default", GiveUp: queue.KeepFailedJob(), KeepFor: time.Hour,
			Run: func(ctx context.Context, j *queue.RunningJob) (any, error) { return s.RunImport(ctx, j) }}}})
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(accounts.Options{DB: db, Clock: clk, Log: log})
	s = New(Options{DB: db, Clock: clk, Log: log, Jobs: jobs, Events: event.New(event.Options{}), Accounts: acc})
	return s
}
