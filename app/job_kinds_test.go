package app_test

import (
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/workflow"
)

// Every kind of the table says how it ends after its last attempt, and
// only periodic kinds end by waiting for their next period.
func TestEveryJobKindDeclaresATerminalOutcome(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{Offline: true, NoWorkers: true, NoProject: true})
	kinds := e.App.Jobs().Kinds()
	want := map[string]string{
		messaging.JobDeliver:         "give-up hook",
		messaging.JobDeliverCampaign: "give-up hook",
		campaigns.JobCampaignSend:    "give-up hook",
		audience.JobImportContacts:   "kept failed",
		audience.JobBulkContacts:     "kept failed",
		senders.JobCheckDomains:      "rescheduled",
		audience.JobSegments:         "rescheduled",
		app.JobCleanup:               "rescheduled",
		accounts.JobAccounts:         "rescheduled",

		workflow.JobEnrol:   "give-up hook",
		workflow.JobStep:    "give-up hook",
		workflow.JobTimer:   "give-up hook",
		workflow.JobWebhook: "give-up hook",
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
