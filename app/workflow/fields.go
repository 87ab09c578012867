package workflow

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/storage"
)

// WorkflowField is a field a CONDITION step can test.
type WorkflowField struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	Category string `json:"category"` // contact | data | event
}

// WorkflowFields is GET /workflows/fields.
type WorkflowFields struct {
	Fields []WorkflowField `json:"fields"`
	Count  int             `json:"count"`
}

// recentEventsForFields is how many events GET /workflows/fields reads.
const recentEventsForFields = 100

// GetWorkflowFields lists the contact fields, the contact's data keys
// (typed as /contacts/fields types them) and the keys of the last 100
// events, of one name if given.
func (a *Service) GetWorkflowFields(ctx context.Context, projectID, eventName string) (WorkflowFields, error) {
	fields := []WorkflowField{{Field: "email", Type: "string", Category: "contact"},
		{Field: "subscribed", Type: "boolean", Category: "contact"}}
	stats, err := storage.ContactFieldStats(ctx, a.db.Reader(), projectID)
	if err != nil {
		return WorkflowFields{}, err
	}
	for _, s := range stats {
		fields = append(fields, WorkflowField{Field: "data." + s.Key, Type: audience.InferType(s), Category: "data"})
	}
	evs, err := storage.RecentEventData(ctx, a.db.Reader(), projectID, eventName, recentEventsForFields)
	if err != nil {
		return WorkflowFields{}, err
	}
	types := map[string]string{}
	for _, raw := range evs {
		data, _ := jsondata.Decode(raw)
		for k, v := range data {
			t := jsonType(v)
			if old, ok := types[k]; ok && old != t {
				t = "string"
			}
			types[k] = t
		}
	}
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fields = append(fields, WorkflowField{Field: "event." + k, Type: types[k], Category: "event"})
	}
	return WorkflowFields{Fields: fields, Count: len(fields)}, nil
}

func jsonType(v any) string {
	switch x := v.(type) {
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case string:
		if _, ok := jsondata.ParseDate(x); ok {
			return "date"
		}
	}
	return "string"
}

// withUpcomingSteps adds the workflow steps waiting on a timer to the
// upcoming sends, soonest first, within the limit.
func (s *Service) WithUpcomingSteps(ctx context.Context, projectID string, out []Upcoming, limit int) ([]Upcoming, error) {
	rows, err := storage.UpcomingExecutions(ctx, s.db.Reader(), projectID, limit)
	if err != nil {
		return out, err
	}
	for _, u := range rows {
		due := u.DueAt
		out = append(out, Upcoming{Kind: "workflow", ID: u.ExecutionID, Name: u.WorkflowName, ScheduledFor: &due,
			WorkflowID: u.WorkflowID, StepID: u.StepID, StepType: u.StepType, ContactID: u.ContactID})
	}
	sort.SliceStable(out, func(i, j int) bool { return scheduled(out[i]).Before(scheduled(out[j])) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func scheduled(u Upcoming) time.Time {
	if u.ScheduledFor == nil {
		return time.Time{}
	}
	return *u.ScheduledFor
}

// Upcoming is a scheduled send, or a workflow step due at a known time.
type Upcoming struct {
	Kind         string     `json:"kind"` // "campaign" or "workflow"
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	ScheduledFor *time.Time `json:"scheduledFor"`
	AudienceType string     `json:"audienceType,omitempty"`

	// Workflow entries: the execution is ID, the workflow's name Name.
	WorkflowID string `json:"workflowId,omitempty"`
	StepID     string `json:"stepId,omitempty"`
	StepType   string `json:"stepType,omitempty"`
	ContactID  string `json:"contactId,omitempty"`
}
