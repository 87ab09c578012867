package app_test

import (
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/apptest"
)

// Every kind of the table says how it ends after its last attempt, and
// only periodic kinds end by waiting for their next period.
func TestEveryJobKindDeclaresATerminalOutcome(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{Offline: true, NoWorkers: true, NoProject: true})
	kinds := e.App.Jobs().Kinds()
	want := map[string]string{
		app.JobDeliver:         "give-up hook",
		app.JobDeliverCampaign: "give-up hook",
		app.JobCampaignSend:    "give-up hook",
		app.JobImportContacts:  "kept failed",
		app.JobBulkContacts:    "kept failed",
		app.JobCheckDomains:    "rescheduled",
		app.JobSegments:        "rescheduled",
		app.JobCleanup:         "rescheduled",
		app.JobAccounts:        "rescheduled",

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
