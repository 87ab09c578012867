package workflow

import (
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/paging"

	"github.com/heraldmail/herald/app/apierr"

	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/heraldmail/herald/storage"
)

// Workflow is an automation (contracts/workflows.md). GET /workflows/{id}
// adds its steps and transitions.
type Workflow = storage.Workflow

// WorkflowDetail is a workflow with its graph.
type WorkflowDetail struct {
	storage.Workflow
	Steps       []storage.WorkflowStep       `json:"steps"`
	Transitions []storage.WorkflowTransition `json:"transitions"`
}

// WorkflowInput is the body of POST and PATCH /workflows.
type WorkflowInput struct {
	Name          *string
	Description   *string
	EventName     *string
	Enabled       *bool
	AllowReentry  *bool
	TriggerType   *string
	TriggerConfig json.RawMessage
}

func workflowErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("WORKFLOW_NOT_FOUND", "Workflow not found")
	}
	return err
}

func checkWorkflowName(v *apierr.Validation, name *string) string {
	if name == nil {
		v.Add("name", "invalid_type", "Required", "undefined")
		return ""
	}
	n := strings.TrimSpace(*name)
	if n == "" || len([]rune(n)) > 100 {
		v.Add("name", "too_small", "Name must be 1 to 100 characters", *name)
	}
	return n
}

func checkWorkflowDescription(v *apierr.Validation, d *string) *string {
	if d == nil {
		return nil
	}
	s := strings.TrimSpace(*d)
	if len([]rune(s)) > 500 {
		v.Add("description", "too_big", "Description must be at most 500 characters", *d)
	}
	return &s
}

func checkTriggerEvent(v *apierr.Validation, field string, name *string) string {
	if name == nil {
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	}
	n := strings.TrimSpace(*name)
	if n == "" || len(n) > event.MaxEventName {
		v.Add(field, "too_small", "Event name must be 1 to 255 characters", *name)
	}
	return n
}

func triggerConfig(eventName string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"eventName": eventName})
	return b
}

func triggerStepName(eventName string) string { return "Trigger: " + eventName }

// CreateWorkflow creates an EVENT workflow with its TRIGGER step.
func (en *Service) CreateWorkflow(ctx context.Context, projectID string, in WorkflowInput) (WorkflowDetail, error) {
	var v apierr.Validation
	name := checkWorkflowName(&v, in.Name)
	desc := checkWorkflowDescription(&v, in.Description)
	event := checkTriggerEvent(&v, "eventName", in.EventName)
	if err := v.Err(); err != nil {
		return WorkflowDetail{}, err
	}
	now := en.now()
	w := storage.Workflow{ID: newID(), ProjectID: projectID, Name: name, Description: desc,
		Enabled: in.Enabled != nil && *in.Enabled, AllowReentry: in.AllowReentry != nil && *in.AllowReentry,
		TriggerType: TriggerEvent, TriggerConfig: triggerConfig(event), EventName: event, CreatedAt: now, UpdatedAt: now}
	trigger := storage.WorkflowStep{ID: newID(), WorkflowID: w.ID, Type: StepTrigger, Name: triggerStepName(event),
		Position: json.RawMessage(`{"x":0,"y":0}`), Config: triggerConfig(event), CreatedAt: now, UpdatedAt: now}
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		if err := tx.InsertWorkflow(ctx, w); err != nil {
			return err
		}
		en.changed(tx, projectID)
		return tx.InsertStep(ctx, trigger)
	})
	return WorkflowDetail{Workflow: w, Steps: []storage.WorkflowStep{trigger}, Transitions: []storage.WorkflowTransition{}}, err
}

// WorkflowQuery is GET /workflows's query.
type WorkflowQuery struct {
	Limit   int
	Cursor  string
	Search  string
	Enabled *bool
}

// ListWorkflows returns one page of workflows, newest first.
func (en *Service) ListWorkflows(ctx context.Context, projectID string, q WorkflowQuery) (paging.Page[Workflow], error) {
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Workflow]{}, err
	}
	afterID := ""
	if after != nil {
		afterID = after.ID
	}
	f := storage.WorkflowFilter{ProjectID: projectID, Search: strings.TrimSpace(q.Search), Enabled: q.Enabled}
	rows, err := storage.ListWorkflows(ctx, en.db.Reader(), f, afterID, q.Limit+1)
	if err != nil {
		return paging.Page[Workflow]{}, err
	}
	page := paging.Paginate(rows, q.Limit, func(w Workflow) storage.Cursor { return storage.Cursor{Sort: "id", Desc: true, ID: w.ID} })
	if after == nil {
		page.Total, err = storage.CountWorkflows(ctx, en.db.Reader(), f)
	}
	return page, err
}

// GetWorkflow returns a workflow with its steps and transitions.
func (en *Service) GetWorkflow(ctx context.Context, projectID, id string) (WorkflowDetail, error) {
	return en.workflowDetail(ctx, en.db.Reader(), projectID, id)
}

func (en *Service) workflowDetail(ctx context.Context, q storage.Querier, projectID, id string) (WorkflowDetail, error) {
	w, err := storage.WorkflowByID(ctx, q, projectID, id)
	if err != nil {
		return WorkflowDetail{}, workflowErr(err)
	}
	d := WorkflowDetail{Workflow: w}
	if d.Steps, err = storage.WorkflowSteps(ctx, q, id); err != nil {
		return d, err
	}
	if d.Transitions, err = storage.WorkflowTransitions(ctx, q, id); err != nil {
		return d, err
	}
	if d.Steps == nil {
		d.Steps = []storage.WorkflowStep{}
	}
	if d.Transitions == nil {
		d.Transitions = []storage.WorkflowTransition{}
	}
	return d, nil
}

// UpdateWorkflow changes a workflow's metadata, trigger, enabled flag or
// re-entry rule.
func (en *Service) UpdateWorkflow(ctx context.Context, projectID, id string, in WorkflowInput) (WorkflowDetail, error) {
	var d WorkflowDetail
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		w, err := storage.WorkflowByID(ctx, tx, projectID, id)
		if err != nil {
			return workflowErr(err)
		}
		var v apierr.Validation
		if in.Name != nil {
			w.Name = checkWorkflowName(&v, in.Name)
		}
		if in.Description != nil {
			w.Description = checkWorkflowDescription(&v, in.Description)
		}
		trigger, newEvent := en.patchTrigger(&v, &w, in)
		if err := v.Err(); err != nil {
			return err
		}
		if in.Enabled != nil {
			w.Enabled = *in.Enabled
		}
		if in.AllowReentry != nil {
			w.AllowReentry = *in.AllowReentry
		}
		if trigger {
			if err := en.checkTriggerChange(ctx, tx, w); err != nil {
				return err
			}
			if err := en.reconfigureTrigger(ctx, tx, w.ID, newEvent); err != nil {
				return err
			}
		}
		w.UpdatedAt = en.now()
		if err := tx.UpdateWorkflow(ctx, w); err != nil {
			return err
		}
		en.changed(tx, projectID)
		d, err = en.workflowDetail(ctx, tx, projectID, id)
		return err
	})
	return d, err
}

// patchTrigger applies a PATCH's trigger fields; it reports whether the
// trigger changes and the event name of an EVENT trigger.
func (en *Service) patchTrigger(v *apierr.Validation, w *storage.Workflow, in WorkflowInput) (bool, string) {
	typ := w.TriggerType
	if in.TriggerType != nil {
		typ = *in.TriggerType
		if typ != TriggerEvent && typ != TriggerManual {
			v.Add("triggerType", "invalid_enum_value", "Trigger type must be EVENT or MANUAL", typ)
			return false, ""
		}
	}
	var cfg struct {
		EventName *string `json:"eventName"`
	}
	hasCfg := len(in.TriggerConfig) > 0 && string(in.TriggerConfig) != "null"
	if hasCfg {
		if err := json.Unmarshal(in.TriggerConfig, &cfg); err != nil {
			v.Add("triggerConfig", "invalid_type", "Trigger config must be an object", string(in.TriggerConfig))
			return false, ""
		}
	}
	if cfg.EventName == nil && in.EventName != nil {
		cfg.EventName, hasCfg = in.EventName, true
	}
	if in.TriggerType == nil && !hasCfg {
		return false, ""
	}
	if typ == TriggerManual {
		changed := w.TriggerType != TriggerManual
		w.TriggerType, w.TriggerConfig, w.EventName = TriggerManual, json.RawMessage(`{}`), ""
		return changed, ""
	}
	event := checkTriggerEvent(v, "triggerConfig.eventName", cfg.EventName)
	changed := w.TriggerType != TriggerEvent || w.EventName != event
	w.TriggerType, w.TriggerConfig, w.EventName = TriggerEvent, triggerConfig(event), event
	return changed, event
}

// checkTriggerChange refuses to change what starts a workflow under
// executions that started from the old trigger.
func (en *Service) checkTriggerChange(ctx context.Context, tx *storage.Tx, w storage.Workflow) error {
	old, err := storage.WorkflowByID(ctx, tx, w.ProjectID, w.ID)
	if err != nil || !old.Enabled {
		return err
	}
	n, err := storage.CountActiveExecutions(ctx, tx, w.ID)
	if err == nil && n > 0 {
		return apierr.Conflict("The workflow is enabled and has %d active executions: disable it, or cancel them, before changing its trigger", n)
	}
	return err
}

// reconfigureTrigger renames the TRIGGER step after the trigger's event.
func (en *Service) reconfigureTrigger(ctx context.Context, tx *storage.Tx, workflowID, event string) error {
	steps, err := storage.WorkflowSteps(ctx, tx, workflowID)
	if err != nil {
		return err
	}
	for _, st := range steps {
		if st.Type != StepTrigger {
			continue
		}
		st.Config, st.UpdatedAt = json.RawMessage(`{}`), en.now()
		st.Name = "Trigger: manual"
		if event != "" {
			st.Name, st.Config = triggerStepName(event), triggerConfig(event)
		}
		if err := tx.UpdateStep(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// DeleteWorkflow removes a workflow that has no active execution.
func (en *Service) DeleteWorkflow(ctx context.Context, projectID, id string) error {
	return en.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.WorkflowByID(ctx, tx, projectID, id); err != nil {
			return workflowErr(err)
		}
		n, err := storage.CountActiveExecutions(ctx, tx, id)
		if err != nil {
			return err
		}
		if n > 0 {
			return apierr.Conflict("The workflow has %d active executions: cancel them or let them finish first", n)
		}
		en.changed(tx, projectID)
		return tx.DeleteWorkflow(ctx, projectID, id)
	})
}
