package web_test

import (
	"fmt"
	"net/http"

	"net/http/httptest"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/web/webtest"
)

func TestWorkflowMultiConditionAndExitReason(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Router", "eventName": "order", "enabled": true, "allowReentry": true})
	cond := addStep(t, e, w.ID, map[string]any{"type": "CONDITION", "config": map[string]any{"mode": "multi", "field": "event.total",
		"branches": []any{map[string]any{"id": "big", "name": "Big", "operator": "greaterThanOrEqual", "value": 100},
			map[string]any{"id": "mid", "name": "Mid", "operator": "greaterThan", "value": 10}}}})
	expectField(t, e.Secret("POST", "/workflows/"+w.ID+"/steps", map[string]any{"type": "CONDITION",
		"config": map[string]any{"mode": "multi", "field": "x", "branches": []any{}}}), "config.branches", "invalid_value")
	big := addStep(t, e, w.ID, map[string]any{"type": "EXIT", "config": map[string]any{"reason": "vip"}})
	mid := addStep(t, e, w.ID, map[string]any{"type": "EXIT", "autoConnect": false, "config": map[string]any{"reason": "mid"}})
	tr := func(b string, to string) {
		expectStatus(t, e.Secret("POST", "/workflows/"+w.ID+"/transitions", map[string]any{"fromStepId": cond.ID, "toStepId": to, "branch": b}), 201)
	}
	tr("mid", mid.ID)
	if r := e.Secret("POST", "/workflows/"+w.ID+"/transitions", map[string]any{"fromStepId": cond.ID, "toStepId": mid.ID, "branch": "yes"}); r.Status != 400 {
		t.Errorf("yes on a multi condition: %d", r.Status)
	}
	_ = big
	for _, total := range []int{500, 50, 5} {
		trackEvent(t, e, fmt.Sprintf("m%d@example.com", total), "order", map[string]any{"total": total})
	}
	waitExecutions(t, e, w.ID, "EXITED", 2)
	waitExecutions(t, e, w.ID, "COMPLETED", 1)
	var p page[executionJSON]
	e.Secret("GET", "/workflows/"+w.ID+"/executions", nil).Decode(t, &p)
	want := map[string][3]string{"m500@example.com": {"big", "EXITED", "vip"}, "m50@example.com": {"mid", "EXITED", "mid"},
		"m5@example.com": {"default", "COMPLETED", ""}}
	for _, xs := range p.Data {
		x := getExecution(t, e, w.ID, xs.ID)
		wnt := want[x.Contact["email"].(string)]
		reason := ""
		if x.ExitReason != nil {
			reason = *x.ExitReason
		}
		if x.StepExecutions[1].Output["branch"] != wnt[0] || x.Status != wnt[1] || reason != wnt[2] {
			t.Errorf("%s: branch %v status %s reason %q, want %v", x.Contact["email"], x.StepExecutions[1].Output, x.Status, reason, wnt)
		}
	}
}

func TestWorkflowManualTriggerAndUnverifiedSender(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	tpl := e.Secret("POST", "/templates", map[string]any{"name": "T", "subject": "s", "body": "<p>b</p>", "from": "a@herald.test", "type": "TRANSACTIONAL"})
	expectStatus(t, tpl, 201)
	w := createWorkflow(t, e, map[string]any{"name": "Manual", "eventName": "x"})
	r := e.Secret("PATCH", "/workflows/"+w.ID, map[string]any{"triggerType": "MANUAL", "enabled": true})
	expectStatus(t, r, 200)
	g := getWorkflow(t, e, w.ID)
	if g.TriggerType != "MANUAL" || len(g.TriggerConfig) != 0 || g.Steps[0].Type != "TRIGGER" {
		t.Fatalf("manual %+v", g)
	}
	addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": tpl.JSON()["id"]}})
	// The domain stops being verified: its DKIM record disappears and two
	// checks in a row fail.
	var doms []struct {
		ID      string `json:"id"`
		Records []struct{ Type, Name string }
	}
	e.Secret("GET", "/domains/project/"+e.Project.ID, nil).Decode(t, &doms)
	for _, rec := range doms[0].Records {
		if rec.Type == "TXT" && strings.Contains(rec.Name, "._domainkey.") {
			e.DNS.Remove(strings.TrimSuffix(rec.Name, ".")+".", dns.TypeTXT)
		}
	}
	for range 2 {
		e.Secret("GET", "/domains/"+doms[0].ID+"/verify", nil)
	}
	c := createContact(t, e, map[string]any{"email": "u@example.com"})
	expectStatus(t, e.Secret("POST", "/workflows/"+w.ID+"/executions", map[string]any{"contactId": c.ID}), 201)
	xs := waitExecutions(t, e, w.ID, "FAILED", 1)
	if xs[0].ExitReason == nil || !strings.Contains(*xs[0].ExitReason, "not verified") {
		t.Fatalf("unverified sender: %+v", xs[0])
	}
	trackEvent(t, e, "u@example.com", "x", nil) // a MANUAL workflow does not enrol
	waitEngineIdle(t, e)
	var p page[executionJSON]
	e.Secret("GET", "/workflows/"+w.ID+"/executions", nil).Decode(t, &p)
	if p.Total != 1 {
		t.Errorf("%d executions", p.Total)
	}
}

func TestWorkflowWebhookResponseIsCapped(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{Webhooks: workflow.WebhookOptions{AllowPrivate: true}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 100<<10)))
	}))
	defer srv.Close()
	w := createWorkflow(t, e, map[string]any{"name": "Big", "eventName": "go", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": srv.URL, "method": "DELETE",
		"body": map[string]any{"who": "{{email}}", "n": 1}}})
	trackEvent(t, e, "big@example.com", "go", nil)
	xs := waitExecutions(t, e, w.ID, "COMPLETED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	resp, _ := x.StepExecutions[1].Output["response"].(string)
	if len(resp) != 16<<10 || x.StepExecutions[1].Output["method"] != "DELETE" {
		t.Fatalf("response of %d bytes kept", len(resp))
	}
}

// Emitted events enrol like tracked ones: contact.unsubscribed from a
// PATCH of the contact.
func TestWorkflowFromEmittedContactEvent(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Goodbye", "eventName": "contact.unsubscribed", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"left": true}}})
	c := createContact(t, e, map[string]any{"email": "bye@example.com"})
	expectStatus(t, e.Secret("PATCH", "/contacts/"+c.ID, map[string]any{"subscribed": false}), 200)
	xs := waitExecutions(t, e, w.ID, "COMPLETED", 1)
	if xs[0].ContactID != c.ID || xs[0].Context["reason"] != "api" {
		t.Fatalf("execution %+v", xs[0])
	}
	if got := getContact(t, e, c.ID); got.Data["left"] != true {
		t.Errorf("contact %+v", got)
	}
}
