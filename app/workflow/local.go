package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/storage"
)

func (en *Service) runContact(ctx context.Context, tx *storage.Tx, r *execRun) (storage.Contact, error) {
	var c storage.Contact
	var err error
	if r.contacts != nil {
		c, err = r.contacts.contact(ctx, tx, r.x.ProjectID, r.x.ContactID)
	} else {
		c, err = storage.ContactByID(ctx, tx, r.x.ProjectID, r.x.ContactID)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return c, failStep("Contact %s was deleted", r.x.ContactID)
	}
	return c, err
}

// updateContactStep merges the step's updates into the contact's data (a
// null deletes a key) and applies its subscription action.
func (en *Service) updateContactStep(ctx context.Context, tx *storage.Tx, r *execRun, st storage.WorkflowStep) (map[string]any, error) {
	var cfg UpdateConfig
	if err := json.Unmarshal(st.Config, &cfg); err != nil {
		return nil, failStep("The step's config is unreadable: %v", err)
	}
	c, err := en.runContact(ctx, tx, r)
	if err != nil {
		return nil, err
	}
	data, err := jsondata.Decode(c.Data)
	if err != nil {
		return nil, err
	}
	changed := audience.ParseData(cfg.Updates).Apply(data)
	flipped := false
	switch cfg.SubscriptionAction {
	case "subscribe":
		flipped = !c.Subscribed
		c.Subscribed = true
	case "unsubscribe":
		flipped = c.Subscribed
		c.Subscribed = false
	}
	if changed || flipped {
		now := en.now()
		c.Data, c.UpdatedAt = jsondata.Encode(data), now
		if r.out != nil && r.contacts != nil { // a batch: its copy of the contact serves its later reads
			if err := r.out.UpdateContactData(ctx, c, flipped); err != nil {
				return nil, err
			}
			r.contacts.updated(c)
		} else if err := tx.UpdateContactData(ctx, c, flipped); err != nil {
			return nil, err
		}
		if flipped {
			if err := en.audience.EmitSubscription(ctx, tx, c, event.ReasonWorkflow, now); err != nil {
				return nil, err
			}
		}
	}
	return map[string]any{"updated": changed || flipped, "subscribed": c.Subscribed}, nil
}

// evalCondition picks a CONDITION step's branch: yes or no, or for a multi
// condition the id of the first branch that matches, else default.
func (en *Service) evalCondition(ctx context.Context, tx *storage.Tx, r *execRun, c ConditionConfig) (string, error) {
	value, err := en.conditionField(ctx, tx, r, c.Field)
	if err != nil {
		return "", err
	}
	if c.Mode == "multi" {
		for _, b := range c.Branches {
			if MatchCondition(value, b.Operator, b.Value) {
				return b.ID, nil
			}
		}
		return "default", nil
	}
	if MatchCondition(value, c.Operator, c.Value) {
		return "yes", nil
	}
	return "no", nil
}

// conditionField reads a field as segment filters name it: email,
// subscribed and data.<key> of the contact (contact. prefix allowed), and
// event.<key> of the execution's context. nil is "no value".
func (en *Service) conditionField(ctx context.Context, tx *storage.Tx, r *execRun, field string) (any, error) {
	if key, ok := strings.CutPrefix(field, "event."); ok {
		return r.context()[key], nil
	}
	f := strings.TrimPrefix(field, "contact.")
	c, err := en.runContact(ctx, tx, r)
	if err != nil {
		return nil, err
	}
	switch f {
	case "email":
		return c.Email, nil
	case "subscribed":
		return c.Subscribed, nil
	case "id":
		return c.ID, nil
	}
	data, err := jsondata.Decode(c.Data)
	if err != nil {
		return nil, err
	}
	if key, ok := strings.CutPrefix(f, "data."); ok {
		return data[key], nil
	}
	return data[f], nil
}

// MatchCondition applies an operator: numbers compare as numbers, dates as
// dates, anything else as text (contains ignores case, as segment filters
// do).
func MatchCondition(v any, op string, want any) bool {
	present := v != nil && v != ""
	switch op {
	case "exists":
		return present
	case "notExists":
		return !present
	}
	if !present {
		return op == "notEquals" || op == "notContains"
	}
	switch op {
	case "equals":
		return valuesEqual(v, want)
	case "notEquals":
		return !valuesEqual(v, want)
	case "contains":
		return strings.Contains(strings.ToLower(textOf(v)), strings.ToLower(textOf(want)))
	case "notContains":
		return !strings.Contains(strings.ToLower(textOf(v)), strings.ToLower(textOf(want)))
	}
	cmp, ok := compareValues(v, want)
	if !ok {
		return false
	}
	switch op {
	case "greaterThan":
		return cmp > 0
	case "lessThan":
		return cmp < 0
	case "greaterThanOrEqual":
		return cmp >= 0
	case "lessThanOrEqual":
		return cmp <= 0
	}
	return false
}

func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case json.Number:
		return x.String()
	}
	if f, ok := Number(v); ok {
		return fmt.Sprint(f)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func valuesEqual(v, want any) bool {
	if a, ok := Number(v); ok {
		if b, ok := Number(want); ok {
			return a == b
		}
		if s, ok := want.(string); ok {
			if b, ok := Number(json.Number(strings.TrimSpace(s))); ok {
				return a == b
			}
		}
	}
	if a, ok := v.(bool); ok {
		b, ok := jsondata.Bool(want)
		return ok && a == b
	}
	return textOf(v) == textOf(want)
}

func compareValues(v, want any) (int, bool) {
	a, ok1 := Number(v)
	if !ok1 {
		if s, ok := v.(string); ok {
			a, ok1 = Number(json.Number(strings.TrimSpace(s)))
		}
	}
	b, ok2 := Number(want)
	if !ok2 {
		if s, ok := want.(string); ok {
			b, ok2 = Number(json.Number(strings.TrimSpace(s)))
		}
	}
	if ok1 && ok2 {
		return cmpFloat(a, b), true
	}
	if ta, ok := jsondata.ParseDate(textOf(v)); ok {
		if tb, ok := jsondata.ParseDate(textOf(want)); ok {
			return ta.Compare(tb), true
		}
	}
	return strings.Compare(textOf(v), textOf(want)), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
