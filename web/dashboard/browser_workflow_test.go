package dashboard_test

import (
	"testing"
	"time"
)

// Build a workflow (trigger, an UPDATE_CONTACT step), enable it, track its
// event and see the execution complete with its step history.
func TestBrowser_WorkflowRunsToCompletion(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "flow@example.com", "Flows")
	p := tb.currentProject()
	key := *p.Secret
	var c struct {
		ID string `json:"id"`
	}
	mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": "new@example.net"}, &c)

	tb.click(`//nav[@aria-label="Main"]//a[.="Workflows"]`)
	tb.typeInto("Workflow name", "Welcome")
	tb.typeInto("Starts on event", "signed-up")
	tb.click(button("Create workflow"))
	tb.waitText("Starts when signed-up happens")
	tb.choose("Step type", "UPDATE_CONTACT")
	tb.typeInto("Data to set (JSON object)", `{"welcomed": true}`)
	tb.click(button("Add step"))
	tb.waitJS(`!!document.querySelector('[data-step-type=UPDATE_CONTACT]')`, 5*time.Second)
	tb.waitJS(`[...document.querySelectorAll('.edges li')].some((li) => li.textContent.includes('UPDATE_CONTACT'))`, 5*time.Second)
	tb.click(button("Enable"))
	tb.waitJS(`[...document.querySelectorAll('.badge')].some((b) => b.textContent === 'Enabled')`, 5*time.Second)

	mustCall(t, h, p.Public, "POST", "/v1/track", map[string]any{"email": "new@example.net", "event": "signed-up"}, nil)
	tb.waitJS(`[...document.querySelectorAll('td .badge')].some((b) => b.textContent === 'COMPLETED')`, 30*time.Second)
	tb.click(button("Steps"))
	tb.waitText("Step history")
	tb.waitJS(`document.querySelectorAll('.card ol li .badge').length >= 2`, 5*time.Second)
	var got struct {
		Data map[string]any `json:"data"`
	}
	mustCall(t, h, key, "GET", "/contacts/"+c.ID, nil, &got)
	if got.Data["welcomed"] != true {
		t.Fatalf("contact data after the workflow: %v", got.Data)
	}
}
