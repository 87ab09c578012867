package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
)

// Workflow trigger types and step types.
const (
	TriggerEvent  = "EVENT"
	TriggerManual = "MANUAL"

	StepTrigger       = "TRIGGER"
	StepSendEmail     = "SEND_EMAIL"
	StepDelay         = "DELAY"
	StepWaitForEvent  = "WAIT_FOR_EVENT"
	StepCondition     = "CONDITION"
	StepWebhook       = "WEBHOOK"
	StepUpdateContact = "UPDATE_CONTACT"
	StepExit          = "EXIT"
)

// Typed step configs, as stored. app checks them when a step is saved;
// the engine reads them as they are.
type (
	SendEmailConfig struct {
		TemplateID string         `json:"templateId"`
		Recipient  *RecipientRule `json:"recipient,omitempty"`
	}
	RecipientRule struct {
		Type        string `json:"type"`
		CustomEmail string `json:"customEmail,omitempty"`
	}
	DelayConfig struct {
		Amount float64 `json:"amount"`
		Unit   string  `json:"unit"`
	}
	WaitConfig struct {
		EventName string `json:"eventName"`
		Timeout   *int64 `json:"timeout,omitempty"`
	}
	ConditionConfig struct {
		Mode     string            `json:"mode,omitempty"`
		Field    string            `json:"field"`
		Operator string            `json:"operator,omitempty"`
		Value    any               `json:"value,omitempty"`
		Branches []ConditionBranch `json:"branches,omitempty"`
	}
	ConditionBranch struct {
		ID       string `json:"id"`
		Name     string `json:"name,omitempty"`
		Operator string `json:"operator"`
		Value    any    `json:"value,omitempty"`
	}
	WebhookConfig struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers,omitempty"`
		Body    any               `json:"body,omitempty"`
	}
	UpdateConfig struct {
		Updates            map[string]any `json:"updates,omitempty"`
		SubscriptionAction string         `json:"subscriptionAction,omitempty"`
	}
	ExitConfig struct {
		Reason string `json:"reason,omitempty"`
	}
)

// Duration is how long the DELAY waits.
func (c DelayConfig) Duration() time.Duration {
	u, _ := audience.UnitLength(c.Unit)
	return time.Duration(c.Amount * float64(u))
}

// Number reads a number of a config or of contact or event data.
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// Graph is a workflow's steps and transitions, indexed.
type Graph struct {
	Steps []storage.WorkflowStep // oldest first
	ByID  map[string]storage.WorkflowStep
	Out   map[string][]storage.WorkflowTransition // by priority, highest first, then oldest
	In    map[string][]storage.WorkflowTransition
}

// LoadGraph reads a workflow's graph.
func LoadGraph(ctx context.Context, q storage.Querier, workflowID string) (*Graph, error) {
	steps, err := storage.WorkflowSteps(ctx, q, workflowID)
	if err != nil {
		return nil, err
	}
	ts, err := storage.WorkflowTransitions(ctx, q, workflowID)
	if err != nil {
		return nil, err
	}
	g := &Graph{Steps: steps, ByID: map[string]storage.WorkflowStep{},
		Out: map[string][]storage.WorkflowTransition{}, In: map[string][]storage.WorkflowTransition{}}
	for _, s := range steps {
		g.ByID[s.ID] = s
	}
	for _, t := range ts {
		g.Out[t.FromStepID] = append(g.Out[t.FromStepID], t)
		g.In[t.ToStepID] = append(g.In[t.ToStepID], t)
	}
	for _, out := range g.Out { // the engine takes the highest priority first, then the oldest
		sort.SliceStable(out, func(i, j int) bool { return out[i].Priority > out[j].Priority })
	}
	return g, nil
}

// Reachable lists a step and every step reachable from it.
func (g *Graph) Reachable(from string) []string {
	seen := map[string]bool{from: true}
	order := []string{from}
	for i := 0; i < len(order); i++ {
		for _, t := range g.Out[order[i]] {
			if !seen[t.ToStepID] {
				seen[t.ToStepID] = true
				order = append(order, t.ToStepID)
			}
		}
	}
	return order
}

// templateErr and contactErr map a missing template or contact onto the
// errors app's own endpoints answer with.
func templateErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("TEMPLATE_NOT_FOUND", "Template not found")
	}
	return err
}

func contactErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("CONTACT_NOT_FOUND", "Contact not found")
	}
	return err
}

// ReentryBlocked applies allowReentry: false, any earlier execution
// blocks; true, an active one does.
func ReentryBlocked(ctx context.Context, q storage.Querier, w storage.Workflow, contactID string) (bool, error) {
	any, active, err := storage.ContactExecutions(ctx, q, w.ID, contactID)
	if w.AllowReentry {
		return active, err
	}
	return any, err
}
