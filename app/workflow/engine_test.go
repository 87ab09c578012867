package workflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/storage"
)

// The engine's tests drive it through app's methods, without HTTP: a
// tracked event enrols, the timer wakes a DELAY when the fake clock
// reaches it, and the UPDATE_CONTACT step's change commits with the step.

func ptr[T any](v T) *T { return &v }

// newWorkflow creates an enabled EVENT workflow on event with the steps,
// each connected after the one before.
func newWorkflow(t *testing.T, e *apptest.Env, event string, steps ...workflow.StepInput) workflow.WorkflowDetail {
	t.Helper()
	ctx, pid := context.Background(), e.Project.ID
	w, err := e.App.Workflows.CreateWorkflow(ctx, pid, workflow.WorkflowInput{Name: ptr("Test"), EventName: ptr(event)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if _, err := e.App.Workflows.AddStep(ctx, pid, w.ID, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.App.Workflows.UpdateWorkflow(ctx, pid, w.ID, workflow.WorkflowInput{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

// waitExecution polls until the workflow has an execution in the status.
func waitExecution(t *testing.T, e *apptest.Env, workflowID, status string) workflow.Execution {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := e.App.Workflows.ListExecutions(context.Background(), e.Project.ID, workflowID, workflow.ExecutionQuery{Limit: 10, Status: status})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) > 0 {
			return page.Data[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s execution", status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDelayThenUpdateContactRunsOnTheFakeClock(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{Offline: true})
	ctx := context.Background()
	w := newWorkflow(t, e, "signup",
		workflow.StepInput{Type: ptr(workflow.StepDelay), Config: json.RawMessage(`{"amount":2,"unit":"hours"}`)},
		workflow.StepInput{Type: ptr(workflow.StepUpdateContact), Config: json.RawMessage(`{"updates":{"plan":"pro"}}`)})
	if _, err := e.App.Audience.Track(ctx, e.Project.ID, audience.TrackInput{Email: ptr("ann@example.com"), Event: ptr("signup")}); err != nil {
		t.Fatal(err)
	}
	x := waitExecution(t, e, w.ID, storage.ExecWaiting)
	if x.DueAt == nil || !x.DueAt.Equal(apptest.Start.Add(2*time.Hour)) {
		t.Fatalf("waiting execution due at %v, want two hours after the start", x.DueAt)
	}
	e.Clock.Advance(2 * time.Hour)
	x = waitExecution(t, e, w.ID, storage.ExecCompleted)
	c, err := e.App.Audience.GetContact(ctx, e.Project.ID, x.ContactID)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(c.Data, &data); err != nil || data["plan"] != "pro" {
		t.Fatalf("contact data %s (%v), want plan pro", c.Data, err)
	}
}

func TestCancelEndsAWaitingExecution(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{Offline: true})
	ctx := context.Background()
	w := newWorkflow(t, e, "signup",
		workflow.StepInput{Type: ptr(workflow.StepWaitForEvent), Config: json.RawMessage(`{"eventName":"paid"}`)})
	if _, err := e.App.Audience.Track(ctx, e.Project.ID, audience.TrackInput{Email: ptr("bob@example.com"), Event: ptr("signup")}); err != nil {
		t.Fatal(err)
	}
	x := waitExecution(t, e, w.ID, storage.ExecWaiting)
	if _, err := e.App.Workflows.CancelExecution(ctx, e.Project.ID, w.ID, x.ID); err != nil {
		t.Fatal(err)
	}
	d, err := e.App.Workflows.GetExecution(ctx, e.Project.ID, w.ID, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != storage.ExecCancelled {
		t.Fatalf("execution %s after cancel", d.Status)
	}
	for _, se := range d.StepExecutions {
		if se.Status != storage.StepCompleted && se.Status != storage.StepCancelled {
			t.Errorf("step %s left %s", se.Step.Type, se.Status)
		}
	}
}

func TestSendEmailStepDeliversToTheSink(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{})
	ctx := context.Background()
	e.VerifiedDomain("herald.example")
	e.RouteMail("example.com")
	tpl, err := e.App.Messaging.CreateTemplate(ctx, e.Project.ID, messaging.TemplateInput{Name: ptr("Welcome"),
		Subject: ptr("Welcome {{ event.plan }}"), Body: ptr("<p>Hello</p>"), From: ptr("hi@herald.example"), Type: ptr("TRANSACTIONAL")})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkflow(t, e, "signup",
		workflow.StepInput{Type: ptr(workflow.StepSendEmail), Config: json.RawMessage(`{"templateId":"` + tpl.ID + `"}`)})
	if _, err := e.App.Audience.Track(ctx, e.Project.ID, audience.TrackInput{Email: ptr("cy@example.com"), Event: ptr("signup"),
		Data: map[string]any{"plan": "pro"}}); err != nil {
		t.Fatal(err)
	}
	x := waitExecution(t, e, w.ID, storage.ExecCompleted)
	got := e.Sink.Wait(1, 10*time.Second)
	if len(got) != 1 || len(got[0].To) != 1 || got[0].To[0] != "cy@example.com" ||
		!strings.Contains(string(got[0].Data), "Subject: Welcome pro") {
		t.Fatalf("sink received %+v", got)
	}
	d, err := e.App.Workflows.GetExecution(ctx, e.Project.ID, w.ID, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := d.StepExecutions[len(d.StepExecutions)-1]; last.Step.Type != workflow.StepSendEmail || last.Status != storage.StepCompleted {
		t.Fatalf("last step %s %s", last.Step.Type, last.Status)
	}
}

// A caller that gives no limit gets the default page, not a panic.
func TestListExecutionsWithoutALimit(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Options{Offline: true})
	ctx := context.Background()
	w := newWorkflow(t, e, "signup",
		workflow.StepInput{Type: ptr(workflow.StepWaitForEvent), Config: json.RawMessage(`{"eventName":"paid"}`)})
	for _, email := range []string{"a@example.com", "b@example.com"} {
		if _, err := e.App.Audience.Track(ctx, e.Project.ID, audience.TrackInput{Email: ptr(email), Event: ptr("signup")}); err != nil {
			t.Fatal(err)
		}
	}
	waitExecution(t, e, w.ID, storage.ExecWaiting)
	page, err := e.App.Workflows.ListExecutions(ctx, e.Project.ID, w.ID, workflow.ExecutionQuery{})
	if err != nil || page.HasMore || len(page.Data) == 0 {
		t.Fatalf("page %+v, %v", page, err)
	}
}
