package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func trackEvent(t testing.TB, e *webtest.Env, email, event string, data map[string]any) string {
	t.Helper()
	r := e.Public("POST", "/v1/track", map[string]any{"email": email, "event": event, "data": data})
	expectStatus(t, r, 200)
	var res struct {
		Data struct {
			Event string `json:"event"`
		} `json:"data"`
	}
	r.Decode(t, &res)
	return res.Data.Event
}

// waitFor polls until cond holds.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWorkflowRunsFromTrackedEvent(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Tagger", "eventName": "signup", "enabled": true})
	cond := addStep(t, e, w.ID, map[string]any{"type": "CONDITION", "config": map[string]any{"field": "event.plan", "operator": "equals", "value": "pro"}})
	addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{
		"updates": map[string]any{"tier": "pro", "old": nil}, "subscriptionAction": "unsubscribe"}})
	exit := addStep(t, e, w.ID, map[string]any{"type": "EXIT", "autoConnect": false})
	expectStatus(t, e.Secret("POST", "/workflows/"+w.ID+"/transitions", map[string]any{"fromStepId": cond.ID, "toStepId": exit.ID, "branch": "no"}), 201)

	createContact(t, e, map[string]any{"email": "pro@example.com", "data": map[string]any{"old": "x"}})
	ev := trackEvent(t, e, "pro@example.com", "signup", map[string]any{"plan": "pro", "once": map[string]any{"value": 1, "persistent": false}})
	xs := waitExecutions(t, e, w.ID, "COMPLETED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	if x.SourceEventID == nil || *x.SourceEventID != ev || x.Context["plan"] != "pro" || x.Context["once"] != float64(1) {
		t.Fatalf("execution source %v want %s, context %v", x.SourceEventID, ev, x.Context)
	}
	if x.Contact["email"] != "pro@example.com" || x.CompletedAt == nil || x.ExitReason != nil {
		t.Fatalf("execution %+v", x)
	}
	if len(x.StepExecutions) != 3 {
		t.Fatalf("step executions %+v", x.StepExecutions)
	}
	if o := x.StepExecutions[0].Output; o["eventName"] != "signup" || o["eventId"] != ev {
		t.Errorf("TRIGGER output %v", o)
	}
	if o := x.StepExecutions[1].Output; o["branch"] != "yes" {
		t.Errorf("CONDITION output %v", o)
	}
	if o := x.StepExecutions[2].Output; o["updated"] != true || o["subscribed"] != false {
		t.Errorf("UPDATE_CONTACT output %v", o)
	}
	for _, s := range x.StepExecutions {
		if s.Status != "COMPLETED" {
			t.Errorf("step %v %s", s.Step, s.Status)
		}
	}
	c := getContact(t, e, x.ContactID)
	if c.Data["tier"] != "pro" || c.Data["old"] != nil || c.Subscribed {
		t.Errorf("contact %+v", c)
	}
	evs := contactEvents(t, e, x.ContactID)
	if countNamed(evs, "contact.unsubscribed") != 1 || countNamed(evs, "workflow.started") != 1 || countNamed(evs, "workflow.completed") != 1 {
		t.Errorf("events %v", eventNames(evs))
	}
	for _, ev := range evs {
		if ev.Name == "contact.unsubscribed" && ev.Data["reason"] != "workflow" {
			t.Errorf("reason %v", ev.Data)
		}
	}
	// Activity: type=workflow.
	r := e.Secret("GET", "/activity?type=workflow", nil)
	var act page[map[string]any]
	r.Decode(t, &act)
	if act.Total != 2 {
		t.Fatalf("activity: %s", r.Body)
	}
	if d := act.Data[0]["data"].(map[string]any); d["workflowId"] != w.ID || d["workflowName"] != "Tagger" || d["executionId"] != x.ID || act.Data[0]["contactId"] != x.ContactID {
		t.Errorf("activity item %v", act.Data[0])
	}

	// no branch -> EXIT, exitReason exit_step; re-entry refused: no second run.
	trackEvent(t, e, "free@example.com", "signup", map[string]any{"plan": "free"})
	xs = waitExecutions(t, e, w.ID, "EXITED", 1)
	if xs[0].ExitReason == nil || *xs[0].ExitReason != "exit_step" {
		t.Errorf("exit %+v", xs[0])
	}
	trackEvent(t, e, "free@example.com", "signup", nil)
	waitEngineIdle(t, e) // the event is taken: whatever it enrolled exists
	var all page[executionJSON]
	e.Secret("GET", "/workflows/"+w.ID+"/executions", nil).Decode(t, &all)
	if all.Total != 2 {
		t.Errorf("re-entry: %d executions", all.Total)
	}
	// /events/{name}/usage
	u := e.Secret("GET", "/events/signup/usage", nil).JSON()
	if u["inUse"] != true || len(u["workflows"].([]any)) != 1 {
		t.Errorf("usage %v", u)
	}
	expectError(t, e.Secret("GET", "/workflows/"+w.ID+"/executions?status=NOPE", nil), 400, "BAD_REQUEST")
}

func TestWorkflowManualStartAndCancel(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Waiter", "eventName": "go"})
	addStep(t, e, w.ID, map[string]any{"type": "WAIT_FOR_EVENT", "config": map[string]any{"eventName": "never"}})
	c := createContact(t, e, map[string]any{"email": "m@example.com"})
	base := "/workflows/" + w.ID + "/executions"
	expectError(t, e.Secret("POST", base, map[string]any{"contactId": c.ID}), 409, "CONFLICT") // disabled
	expectStatus(t, e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"enabled": true}), 200)
	expectError(t, e.Secret("POST", base, map[string]any{"contactId": "nope"}), 404, "CONTACT_NOT_FOUND")
	expectField(t, e.Secret("POST", base, map[string]any{"contactId": c.ID, "context": []int{1}}), "context", "invalid_type")
	expectError(t, e.Secret("POST", "/workflows/nope/executions", map[string]any{"contactId": c.ID}), 404, "WORKFLOW_NOT_FOUND")
	r := e.Secret("POST", base, map[string]any{"contactId": c.ID, "context": map[string]any{"k": "v"}})
	expectStatus(t, r, 201)
	var x executionJSON
	r.Decode(t, &x)
	if x.Status != "RUNNING" || x.Context["k"] != "v" || x.SourceEventID != nil {
		t.Fatalf("started %s", r.Body)
	}
	expectError(t, e.Secret("POST", base, map[string]any{"contactId": c.ID}), 409, "CONFLICT") // re-entry
	waitExecutions(t, e, w.ID, "WAITING", 1)
	expectError(t, e.Secret("DELETE", "/workflows/"+w.ID, nil), 409, "CONFLICT")
	expectError(t, e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"triggerConfig": map[string]any{"eventName": "other"}}), 409, "CONFLICT")
	r = e.Secret("DELETE", base+"/"+x.ID, nil)
	expectStatus(t, r, 200)
	r.Decode(t, &x)
	if x.Status != "CANCELLED" || x.ExitReason == nil || x.CompletedAt == nil {
		t.Fatalf("cancelled %s", r.Body)
	}
	expectError(t, e.Secret("DELETE", base+"/"+x.ID, nil), 409, "CONFLICT")
	expectError(t, e.Secret("GET", base+"/nope", nil), 404, "NOT_FOUND")
	d := getExecution(t, e, w.ID, x.ID)
	if last := d.StepExecutions[len(d.StepExecutions)-1]; last.Status != "CANCELLED" {
		t.Errorf("open step %+v", last)
	}
	// allowReentry: a new run once none is active; cancel-all.
	expectStatus(t, e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"allowReentry": true}), 200)
	expectStatus(t, e.Secret("POST", base, map[string]any{"contactId": c.ID}), 201)
	r = e.Secret("POST", base+"/cancel-all", nil)
	expectStatus(t, r, 200)
	if r.JSON()["cancelled"] != float64(1) {
		t.Errorf("cancel-all %s", r.Body)
	}
	expectStatus(t, e.Secret("DELETE", "/workflows/"+w.ID, nil), 204)
}

func TestWorkflowDelayAndWait(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Timers", "eventName": "start", "enabled": true})
	delay := addStep(t, e, w.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 2, "unit": "days"}})
	wait := addStep(t, e, w.ID, map[string]any{"type": "WAIT_FOR_EVENT", "config": map[string]any{"eventName": "paid", "timeout": 3600}})
	addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"done": true}}})
	_ = wait

	trackEvent(t, e, "a@example.com", "start", nil)
	trackEvent(t, e, "b@example.com", "start", nil)
	xs := waitExecutions(t, e, w.ID, "WAITING", 2)
	x := getExecution(t, e, w.ID, xs[0].ID)
	last := x.StepExecutions[len(x.StepExecutions)-1]
	resume := webtest.Start.Add(48 * time.Hour)
	if last.Status != "SCHEDULED" || last.StepID != delay.ID || last.ExecuteAfter == nil || !last.ExecuteAfter.Equal(resume) ||
		last.Output["delayAmount"] != float64(2) || last.Output["delayUnit"] != "days" {
		t.Fatalf("delay step %+v", last)
	}
	up := e.Secret("GET", "/activity/upcoming", nil)
	if !strings.Contains(string(up.Body), `"kind":"workflow"`) || !strings.Contains(string(up.Body), `"stepType":"DELAY"`) {
		t.Errorf("upcoming %s", up.Body)
	}
	// An event before the wait began does not count.
	trackEvent(t, e, "a@example.com", "paid", map[string]any{"early": true})
	e.Clock.Advance(48 * time.Hour)
	waitUntil(t, "waits", func() bool {
		d := getExecution(t, e, w.ID, xs[0].ID)
		l := d.StepExecutions[len(d.StepExecutions)-1]
		d2 := getExecution(t, e, w.ID, xs[1].ID)
		l2 := d2.StepExecutions[len(d2.StepExecutions)-1]
		return l.Status == "WAITING" && l2.Status == "WAITING"
	})
	trackEvent(t, e, "a@example.com", "paid", map[string]any{"amount": 5})
	waitEngineIdle(t, e) // a's payment is taken before the hour passes
	// b times out.
	e.Clock.Advance(time.Hour)
	waitExecutions(t, e, w.ID, "COMPLETED", 2)
	for _, x := range []string{xs[0].ID, xs[1].ID} {
		d := getExecution(t, e, w.ID, x)
		var ws stepExecJSON
		for _, s := range d.StepExecutions {
			if s.StepID == wait.ID {
				ws = s
			}
		}
		switch d.Contact["email"] {
		case "a@example.com":
			if ws.Output["waitOutcome"] != "EVENT" || ws.Output["eventName"] != "paid" || d.Context["amount"] != float64(5) {
				t.Errorf("a: %+v %+v", ws, d.Context)
			}
		case "b@example.com":
			if ws.Output["waitOutcome"] != "TIMEOUT" {
				t.Errorf("b: %+v", ws)
			}
		}
	}
}

func TestWorkflowFields(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	createContact(t, e, map[string]any{"email": "f@example.com", "data": map[string]any{"age": 3}})
	trackEvent(t, e, "f@example.com", "buy", map[string]any{"total": 10, "sku": "x"})
	trackEvent(t, e, "f@example.com", "view", map[string]any{"page": "/"})
	r := e.Secret("GET", "/workflows/fields?eventName=buy", nil)
	expectStatus(t, r, 200)
	var f struct {
		Fields []struct{ Field, Type, Category string } `json:"fields"`
		Count  int                                      `json:"count"`
	}
	r.Decode(t, &f)
	got := map[string]string{}
	for _, x := range f.Fields {
		got[x.Field] = x.Type + "/" + x.Category
	}
	for k, v := range map[string]string{"email": "string/contact", "subscribed": "boolean/contact", "data.age": "number/data",
		"event.total": "number/event", "event.sku": "string/event"} {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (%v)", k, got[k], v, got)
		}
	}
	if _, ok := got["event.page"]; ok || f.Count != len(f.Fields) {
		t.Errorf("fields %v", got)
	}
}
