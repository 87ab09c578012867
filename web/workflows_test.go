package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

type stepJSON struct {
	ID         string         `json:"id"`
	WorkflowID string         `json:"workflowId"`
	Type       string         `json:"type"`
	Name       string         `json:"name"`
	Config     map[string]any `json:"config"`
	TemplateID *string        `json:"templateId"`
}

type transitionJSON struct {
	ID          string            `json:"id"`
	FromStepID  string            `json:"fromStepId"`
	ToStepID    string            `json:"toStepId"`
	Condition   map[string]string `json:"condition"`
	Branch      *string           `json:"branch"`
	WaitOutcome *string           `json:"waitOutcome"`
}

type workflowJSON struct {
	ID            string           `json:"id"`
	ProjectID     string           `json:"projectId"`
	Name          string           `json:"name"`
	Description   *string          `json:"description"`
	Enabled       bool             `json:"enabled"`
	AllowReentry  bool             `json:"allowReentry"`
	TriggerType   string           `json:"triggerType"`
	TriggerConfig map[string]any   `json:"triggerConfig"`
	Steps         []stepJSON       `json:"steps"`
	Transitions   []transitionJSON `json:"transitions"`
}

type stepExecJSON struct {
	ID           string         `json:"id"`
	StepID       string         `json:"stepId"`
	Step         map[string]any `json:"step"`
	Status       string         `json:"status"`
	Output       map[string]any `json:"output"`
	Error        *string        `json:"error"`
	ExecuteAfter *time.Time     `json:"executeAfter"`
}

type executionJSON struct {
	ID             string         `json:"id"`
	WorkflowID     string         `json:"workflowId"`
	ContactID      string         `json:"contactId"`
	Contact        map[string]any `json:"contact"`
	Status         string         `json:"status"`
	CurrentStepID  *string        `json:"currentStepId"`
	CurrentStep    map[string]any `json:"currentStep"`
	Context        map[string]any `json:"context"`
	ExitReason     *string        `json:"exitReason"`
	SourceEventID  *string        `json:"sourceEventId"`
	CompletedAt    *time.Time     `json:"completedAt"`
	StepExecutions []stepExecJSON `json:"stepExecutions"`
}

func createWorkflow(t testing.TB, e *webtest.Env, body map[string]any) workflowJSON {
	t.Helper()
	r := e.Secret("POST", "/workflows", body)
	expectStatus(t, r, 201)
	var w workflowJSON
	r.Decode(t, &w)
	return w
}

func addStep(t testing.TB, e *webtest.Env, wf string, body map[string]any) stepJSON {
	t.Helper()
	r := e.Secret("POST", "/workflows/"+wf+"/steps", body)
	expectStatus(t, r, 201)
	var s stepJSON
	r.Decode(t, &s)
	return s
}

func getWorkflow(t testing.TB, e *webtest.Env, id string) workflowJSON {
	t.Helper()
	r := e.Secret("GET", "/workflows/"+id, nil)
	expectStatus(t, r, 200)
	var w workflowJSON
	r.Decode(t, &w)
	return w
}

func getExecution(t testing.TB, e *webtest.Env, wf, id string) executionJSON {
	t.Helper()
	r := e.Secret("GET", "/workflows/"+wf+"/executions/"+id, nil)
	expectStatus(t, r, 200)
	var x executionJSON
	r.Decode(t, &x)
	return x
}

// waitExecutions polls a workflow's executions until n of them have the
// status.
func waitExecutions(t testing.TB, e *webtest.Env, wf, status string, n int) []executionJSON {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.Secret("GET", "/workflows/"+wf+"/executions?limit=100&status="+status, nil)
		var p page[executionJSON]
		r.Decode(t, &p)
		if len(p.Data) >= n {
			return p.Data
		}
		if time.Now().After(deadline) {
			all := e.Secret("GET", "/workflows/"+wf+"/executions?limit=100", nil)
			t.Fatalf("%d executions %s, want %d: %s", len(p.Data), status, n, all.Body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWorkflowCRUD(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "  Welcome  ", "eventName": " signup ", "description": "Greets"})
	if w.Name != "Welcome" || w.Enabled || w.AllowReentry || w.TriggerType != "EVENT" || w.TriggerConfig["eventName"] != "signup" {
		t.Fatalf("created %+v", w)
	}
	if len(w.Steps) != 1 || w.Steps[0].Type != "TRIGGER" || w.Steps[0].Name != "Trigger: signup" || w.Steps[0].Config["eventName"] != "signup" {
		t.Fatalf("trigger step %+v", w.Steps)
	}
	expectField(t, e.Secret("POST", "/workflows", map[string]any{"eventName": "x"}), "name", "invalid_type")
	expectField(t, e.Secret("POST", "/workflows", map[string]any{"name": strings.Repeat("n", 101), "eventName": "x"}), "name", "too_small")
	expectField(t, e.Secret("POST", "/workflows", map[string]any{"name": "n"}), "eventName", "invalid_type")
	expectField(t, e.Secret("POST", "/workflows", map[string]any{"name": "n", "eventName": "x", "description": strings.Repeat("d", 501)}), "description", "too_big")

	createWorkflow(t, e, map[string]any{"name": "Other", "eventName": "buy", "enabled": true})
	r := e.Secret("GET", "/workflows?search=GREETS", nil)
	var p page[workflowJSON]
	r.Decode(t, &p)
	if p.Total != 1 || p.Data[0].ID != w.ID {
		t.Fatalf("search: %s", r.Body)
	}
	e.Secret("GET", "/workflows?enabled=true", nil).Decode(t, &p)
	if p.Total != 1 || p.Data[0].Name != "Other" {
		t.Fatalf("enabled filter: %+v", p)
	}
	e.Secret("GET", "/workflows?limit=1", nil).Decode(t, &p)
	if p.Total != 2 || !p.HasMore || p.Data[0].Name != "Other" {
		t.Fatalf("newest first, paged: %+v", p)
	}
	e.Secret("GET", "/workflows?limit=1&cursor="+p.Cursor, nil).Decode(t, &p)
	if len(p.Data) != 1 || p.Data[0].ID != w.ID || p.HasMore {
		t.Fatalf("page 2: %+v", p)
	}

	expectError(t, e.Secret("GET", "/workflows/nope", nil), 404, "WORKFLOW_NOT_FOUND")
	expectField(t, e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"triggerType": "SCHEDULE"}), "triggerType", "invalid_enum_value")
	expectField(t, e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"triggerType": "EVENT", "triggerConfig": map[string]any{}}), "triggerConfig.eventName", "invalid_type")
	r = e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"triggerConfig": map[string]any{"eventName": "joined"}, "enabled": true})
	expectStatus(t, r, 200)
	w = getWorkflow(t, e, w.ID)
	if !w.Enabled || w.TriggerConfig["eventName"] != "joined" || w.Steps[0].Name != "Trigger: joined" {
		t.Fatalf("patched %+v", w)
	}
	expectStatus(t, e.Secret("DELETE", "/workflows/"+w.ID, nil), 204)
	expectError(t, e.Secret("GET", "/workflows/"+w.ID, nil), 404, "WORKFLOW_NOT_FOUND")
}

func TestWorkflowStepsAndTransitions(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Graph", "eventName": "go"})
	trigger := w.Steps[0].ID
	base := "/workflows/" + w.ID

	expectError(t, e.Secret("POST", base+"/steps", map[string]any{"type": "TRIGGER", "config": map[string]any{}}), 400, "BAD_REQUEST")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "NOPE"}), "type", "invalid_enum_value")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "DELAY", "config": map[string]any{"amount": 0, "unit": "days"}}), "config.amount", "too_small")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "DELAY", "config": map[string]any{"amount": 366, "unit": "days"}}), "config.amount", "too_big")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "WAIT_FOR_EVENT", "config": map[string]any{"eventName": "x", "timeout": 0}}), "config.timeout", "invalid_value")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "CONDITION", "config": map[string]any{"field": "email", "operator": "equals"}}), "config.value", "invalid_type")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": "ftp://x"}}), "config.url", "invalid_string")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": "http://x", "method": "HEAD"}}), "config.method", "invalid_enum_value")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": "http://x", "headers": map[string]any{"A": 1}}}), "config.headers.A", "invalid_type")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"email": "x"}}}), "config.updates.email", "reserved_key")
	expectField(t, e.Secret("POST", base+"/steps", map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{}}), "config", "no_op")
	expectError(t, e.Secret("POST", base+"/steps", map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": "nope"}}), 404, "TEMPLATE_NOT_FOUND")
	expectError(t, e.Secret("POST", "/workflows/nope/steps", map[string]any{"type": "EXIT"}), 404, "WORKFLOW_NOT_FOUND")

	// autoConnect: the trigger links to the new step, the condition's yes
	// branch to the next one, the timed wait by EVENT and TIMEOUT.
	cond := addStep(t, e, w.ID, map[string]any{"type": "CONDITION", "config": map[string]any{"field": "data.plan", "operator": "equals", "value": "pro"}})
	if cond.Name != "CONDITION" {
		t.Errorf("name defaults to the type: %q", cond.Name)
	}
	wait := addStep(t, e, w.ID, map[string]any{"type": "WAIT_FOR_EVENT", "config": map[string]any{"eventName": "paid", "timeout": 60}})
	exit := addStep(t, e, w.ID, map[string]any{"type": "EXIT", "config": map[string]any{"reason": "done"}})
	g := getWorkflow(t, e, w.ID)
	edges := map[string]string{}
	for _, tr := range g.Transitions {
		tag := ""
		if tr.Branch != nil {
			tag = *tr.Branch
			if tr.Condition["branch"] != tag {
				t.Errorf("condition {branch} missing: %+v", tr)
			}
		}
		if tr.WaitOutcome != nil {
			tag = *tr.WaitOutcome
		}
		edges[tr.FromStepID+">"+tr.ToStepID+":"+tag] = tr.ID
	}
	for _, want := range []string{trigger + ">" + cond.ID + ":", cond.ID + ">" + wait.ID + ":yes",
		wait.ID + ">" + exit.ID + ":EVENT", wait.ID + ">" + exit.ID + ":TIMEOUT"} {
		if edges[want] == "" {
			t.Errorf("missing edge %s in %v", want, edges)
		}
	}
	// Transition errors.
	tr := func(body map[string]any) webtest.Response { return e.Secret("POST", base+"/transitions", body) }
	expectError(t, tr(map[string]any{"fromStepId": "nope", "toStepId": exit.ID}), 404, "NOT_FOUND")
	expectField(t, tr(map[string]any{"fromStepId": wait.ID, "toStepId": exit.ID, "waitOutcome": "LATER"}), "waitOutcome", "invalid_enum_value")
	upd := addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "autoConnect": false, "config": map[string]any{"updates": map[string]any{"a": 1}}})
	for name, body := range map[string]map[string]any{
		"self":           {"fromStepId": upd.ID, "toStepId": upd.ID},
		"into trigger":   {"fromStepId": upd.ID, "toStepId": trigger},
		"from exit":      {"fromStepId": exit.ID, "toStepId": upd.ID},
		"second edge":    {"fromStepId": trigger, "toStepId": upd.ID},
		"branch wrong":   {"fromStepId": upd.ID, "toStepId": exit.ID, "branch": "yes"},
		"outcome wrong":  {"fromStepId": upd.ID, "toStepId": exit.ID, "waitOutcome": "EVENT"},
		"branch missing": {"fromStepId": cond.ID, "toStepId": upd.ID},
		"branch unknown": {"fromStepId": cond.ID, "toStepId": upd.ID, "branch": "maybe"},
		"branch taken":   {"fromStepId": cond.ID, "toStepId": upd.ID, "condition": map[string]any{"branch": "yes"}},
		"outcome taken":  {"fromStepId": wait.ID, "toStepId": upd.ID, "waitOutcome": "EVENT"},
		"outcome none":   {"fromStepId": wait.ID, "toStepId": upd.ID},
		"cycle":          {"fromStepId": exit.ID, "toStepId": cond.ID},
	} {
		if r := tr(body); r.Status != 400 || r.ErrorCode() != "BAD_REQUEST" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	r := tr(map[string]any{"fromStepId": cond.ID, "toStepId": upd.ID, "condition": map[string]any{"branch": "no"}})
	expectStatus(t, r, 201)
	// cycle: upd -> cond would loop back
	if r := tr(map[string]any{"fromStepId": upd.ID, "toStepId": cond.ID}); r.Status != 400 {
		t.Errorf("cycle: %d %s", r.Status, r.Body)
	}
	untimed := addStep(t, e, w.ID, map[string]any{"type": "WAIT_FOR_EVENT", "autoConnect": false, "config": map[string]any{"eventName": "x"}})
	if r := tr(map[string]any{"fromStepId": untimed.ID, "toStepId": exit.ID, "waitOutcome": "TIMEOUT"}); r.Status != 400 {
		t.Errorf("TIMEOUT of an untimed wait: %d %s", r.Status, r.Body)
	}

	// PATCH and DELETE of steps.
	expectField(t, e.Secret("PATCH", base+"/steps/"+upd.ID, map[string]any{"type": "EXIT"}), "type", "immutable")
	expectError(t, e.Secret("PATCH", base+"/steps/nope", map[string]any{"name": "x"}), 404, "NOT_FOUND")
	r = e.Secret("PATCH", base+"/steps/"+upd.ID, map[string]any{"name": "Tag", "config": map[string]any{"updates": map[string]any{"b": 2}}})
	expectStatus(t, r, 200)
	expectError(t, e.Secret("DELETE", base+"/steps/"+trigger, nil), 400, "BAD_REQUEST")
	expectError(t, e.Secret("DELETE", base+"/steps/"+cond.ID+"?splice=true", nil), 400, "BAD_REQUEST")
	expectError(t, e.Secret("DELETE", base+"/steps/"+wait.ID+"?splice=true", nil), 400, "BAD_REQUEST")
	expectError(t, e.Secret("DELETE", base+"/transitions/nope", nil), 404, "NOT_FOUND")
	// Deleting the condition takes everything after it.
	expectStatus(t, e.Secret("DELETE", base+"/steps/"+cond.ID, nil), 204)
	g = getWorkflow(t, e, w.ID)
	if len(g.Steps) != 2 || len(g.Transitions) != 0 { // the trigger and the unlinked wait
		t.Fatalf("after delete: %d steps %d transitions", len(g.Steps), len(g.Transitions))
	}
}

func TestWorkflowSpliceStep(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Splice", "eventName": "go"})
	a := addStep(t, e, w.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "hours"}})
	b := addStep(t, e, w.ID, map[string]any{"type": "EXIT"})
	expectStatus(t, e.Secret("DELETE", "/workflows/"+w.ID+"/steps/"+a.ID+"?splice=true", nil), 204)
	g := getWorkflow(t, e, w.ID)
	if len(g.Transitions) != 1 || g.Transitions[0].FromStepID != w.Steps[0].ID || g.Transitions[0].ToStepID != b.ID {
		t.Fatalf("spliced: %+v", g.Transitions)
	}
	expectStatus(t, e.Secret("DELETE", "/workflows/"+w.ID+"/steps/"+b.ID+"?splice=true", nil), 204)
	if g = getWorkflow(t, e, w.ID); len(g.Transitions) != 0 {
		t.Fatalf("a leaf's incoming transitions go with it: %+v", g.Transitions)
	}
}
