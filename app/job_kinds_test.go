package app_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Every kind of the table says how it ends after its last attempt, and
// only periodic kinds end by waiting for their next period.
func TestEveryJobKindDeclaresATerminalOutcome(t *testing.T) {
	t.Parallel()
	db, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := app.New(app.Options{DB: db, Clock: queue.NewFakeClock(time.Unix(0, 0)), Log: slog.New(slog.DiscardHandler)})
	kinds := a.Jobs().Kinds()
	want := map[string]string{
		app.JobDeliver:        "give-up hook",
		app.JobCampaignSend:   "give-up hook",
		app.JobImportContacts: "kept failed",
		app.JobBulkContacts:   "kept failed",
		app.JobCheckDomains:   "rescheduled",
		app.JobSegments:       "rescheduled",
		app.JobCleanup:        "rescheduled",
		app.JobAccounts:       "rescheduled",

		app.JobWorkflowEnrol:   "give-up hook",
		app.JobWorkflowStep:    "give-up hook",
		app.JobWorkflowTimer:   "give-up hook",
		app.JobWorkflowWebhook: "give-up hook",
	}
	if len(kinds) != len(want) {
		t.Errorf("%d kinds in the table, %d expected here: a new kind needs its outcome checked", len(kinds), len(want))
	}
	for _, k := range kinds {
		if !k.GiveUp.Declared() || k.GiveUp.String() != want[k.Name] {
			t.Errorf("kind %s gives up as %q, want %q", k.Name, k.GiveUp, want[k.Name])
		}
		if k.Retry.MaxAttempts < 1 || k.Retry.Backoff == nil {
			t.Errorf("kind %s has no retry policy: %+v", k.Name, k.Retry)
		}
	}
}
