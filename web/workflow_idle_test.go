package web_test

import (
	"context"
	"testing"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// waitEngineIdle waits until the workflow engine has dealt with every
// event noted so far and moved every execution due by the clock's now: its
// inbox is empty and none of its batch jobs is running or queued to run by
// then. The write that takes an event from the inbox enrols and runs its
// executions as far as they go, and queues the job for whatever they wait
// on, so this is a marker ordered after anything those events could still
// cause: a test that asserts something did NOT happen waits for it first.
func waitEngineIdle(t testing.TB, e *webtest.Env) {
	t.Helper()
	waitUntil(t, "the workflow engine to be idle", func() bool {
		var busy int
		err := e.DB.Reader().QueryRow(context.Background(), `SELECT (SELECT COUNT(*) FROM workflow_inbox)
			+ (SELECT COUNT(*) FROM jobs WHERE kind IN (?1, ?2, ?3)
				AND (state = 'active' OR (state = 'queued' AND run_at <= ?4)))`,
			workflow.JobEnrol, workflow.JobStep, workflow.JobTimer, storage.Millis(e.Clock.Now())).Scan(&busy)
		if err != nil {
			t.Fatal(err)
		}
		return busy == 0
	})
}
