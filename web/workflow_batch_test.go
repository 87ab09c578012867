package web_test

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// Timers of several workflows falling due at one instant for one contact
// move in one batch: each UPDATE_CONTACT sees the updates made before it
// in that batch, the last subscription change holds, and every execution,
// step and activity item is written.
func TestWorkflowDelayWaveUpdatesOneContactTwice(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	tag := func(name string, updates map[string]any, action string) workflowJSON {
		w := createWorkflow(t, e, map[string]any{"name": name, "eventName": "joined", "enabled": true})
		addStep(t, e, w.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "hours"}})
		cfg := map[string]any{"updates": updates}
		if action != "" {
			cfg["subscriptionAction"] = action
		}
		addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": cfg})
		return w
	}
	ws := []workflowJSON{
		tag("A", map[string]any{"a": 1}, "unsubscribe"),
		tag("B", map[string]any{"b": 2}, ""),
		tag("C", map[string]any{"c": 3, "a": nil}, ""),
	}
	for _, email := range []string{"one@example.com", "two@example.com"} {
		trackEvent(t, e, email, "joined", nil)
	}
	for _, w := range ws {
		waitExecutions(t, e, w.ID, "WAITING", 2)
	}
	e.Clock.Advance(time.Hour)
	for _, w := range ws {
		xs := waitExecutions(t, e, w.ID, "COMPLETED", 2)
		x := getExecution(t, e, w.ID, xs[0].ID)
		if len(x.StepExecutions) != 3 || x.StepExecutions[2].Output["updated"] != true {
			t.Errorf("%s: %+v", w.Name, x.StepExecutions)
		}
	}
	var cs page[contactJSON]
	e.Secret("GET", "/contacts", nil).Decode(t, &cs)
	if len(cs.Data) != 2 {
		t.Fatalf("contacts %+v", cs.Data)
	}
	for _, c := range cs.Data {
		// A's unsubscribe and C's removal of a apply whatever the order
		// the batch took them in: only "a" depends on it.
		if c.Subscribed || c.Data["b"] != float64(2) || c.Data["c"] != float64(3) {
			t.Errorf("%s: subscribed %v, data %v", c.Email, c.Subscribed, c.Data)
		}
	}
	var act page[map[string]any]
	e.Secret("GET", "/activity?type=workflow&limit=100", nil).Decode(t, &act)
	if act.Total != 12 {
		t.Errorf("%d workflow activity items, want 6 started and 6 completed", act.Total)
	}
	var unsub page[map[string]any]
	e.Secret("GET", "/events?name=contact.unsubscribed", nil).Decode(t, &unsub)
	if unsub.Total != 2 {
		t.Errorf("%d contact.unsubscribed events, want 2", unsub.Total)
	}
	// The index of data values that segments read follows the batch's
	// updates.
	for field, want := range map[string]float64{"data.b": 2, "data.c": 3} {
		var v struct{ Values []any }
		e.Secret("GET", "/contacts/fields/"+field+"/values", nil).Decode(t, &v)
		if len(v.Values) != 1 || v.Values[0] != want {
			t.Errorf("%s values %v", field, v.Values)
		}
	}
}
