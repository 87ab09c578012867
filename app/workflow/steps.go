package workflow

import (
	"github.com/heraldmail/herald/app/apierr"

	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/heraldmail/herald/storage"
)

// Step is a workflow step.
type Step = storage.WorkflowStep

// StepInput is the body of POST and PATCH …/steps.
type StepInput struct {
	Type        *string
	Name        *string
	Position    json.RawMessage
	Config      json.RawMessage
	TemplateID  *string
	AutoConnect *bool
}

func stepNotFound() error { return apierr.NotFound("NOT_FOUND", "Step not found") }

// workflowStep finds a step of a workflow of the project: the workflow is
// checked first (WORKFLOW_NOT_FOUND), then the step (NOT_FOUND).
func workflowStep(ctx context.Context, q storage.Querier, projectID, workflowID, stepID string) (storage.Workflow, storage.WorkflowStep, error) {
	w, err := storage.WorkflowByID(ctx, q, projectID, workflowID)
	if err != nil {
		return w, storage.WorkflowStep{}, workflowErr(err)
	}
	st, err := storage.StepByID(ctx, q, stepID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && st.WorkflowID != workflowID) {
		return w, st, stepNotFound()
	}
	return w, st, err
}

func checkPosition(v *apierr.Validation, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{"x":0,"y":0}`)
	}
	var p struct {
		X *float64 `json:"x"`
		Y *float64 `json:"y"`
	}
	if json.Unmarshal(raw, &p) != nil || p.X == nil || p.Y == nil {
		v.Add("position", "invalid_type", "Position must be {x, y} with numbers", string(raw))
		return nil
	}
	b, _ := json.Marshal(map[string]float64{"x": *p.X, "y": *p.Y})
	return b
}

func checkStepName(v *apierr.Validation, name *string, def string) string {
	if name == nil {
		return def
	}
	n := strings.TrimSpace(*name)
	if n == "" || len([]rune(n)) > 100 {
		v.Add("name", "too_small", "Name must be 1 to 100 characters", *name)
	}
	return n
}

// AddStep adds a step and, unless autoConnect is false, links to it the
// newest step that has a free way out.
func (en *Service) AddStep(ctx context.Context, projectID, workflowID string, in StepInput) (Step, error) {
	var st Step
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.WorkflowByID(ctx, tx, projectID, workflowID); err != nil {
			return workflowErr(err)
		}
		var v apierr.Validation
		typ := ""
		if in.Type == nil {
			v.Add("type", "invalid_type", "Required", "undefined")
		} else if typ = *in.Type; typ == StepTrigger {
			return apierr.BadRequest("A workflow has exactly one TRIGGER step, made with the workflow")
		} else if !stepTypes[typ] {
			v.Add("type", "invalid_enum_value", "Type must be one of SEND_EMAIL, DELAY, WAIT_FOR_EVENT, CONDITION, WEBHOOK, UPDATE_CONTACT, EXIT", typ)
		}
		name := checkStepName(&v, in.Name, typ)
		pos := checkPosition(&v, in.Position)
		if err := v.Err(); err != nil {
			return err
		}
		cfg, tpl, err := en.checkStepConfig(ctx, tx, projectID, typ, in.Config, in.TemplateID)
		if err != nil {
			return err
		}
		now := en.now()
		st = Step{ID: newID(), WorkflowID: workflowID, Type: typ, Name: name, Position: pos, Config: cfg,
			TemplateID: tpl, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertStep(ctx, st); err != nil {
			return err
		}
		en.changed(tx, projectID)
		if in.AutoConnect != nil && !*in.AutoConnect {
			return nil
		}
		return en.autoConnect(ctx, tx, workflowID, st)
	})
	return st, err
}

// autoConnect links to a new step the newest other non-EXIT step with no
// outgoing transition: a CONDITION by its yes branch (a multi one by its
// first), a WAIT_FOR_EVENT by EVENT and, if it has a timeout, TIMEOUT too.
func (en *Service) autoConnect(ctx context.Context, tx *storage.Tx, workflowID string, to Step) error {
	g, err := LoadGraph(ctx, tx, workflowID)
	if err != nil {
		return err
	}
	for i := len(g.Steps) - 1; i >= 0; i-- {
		from := g.Steps[i]
		if from.ID == to.ID || from.Type == StepExit || len(g.Out[from.ID]) > 0 {
			continue
		}
		now := en.now()
		edge := storage.WorkflowTransition{WorkflowID: workflowID, FromStepID: from.ID, ToStepID: to.ID, CreatedAt: now}
		var edges []storage.WorkflowTransition
		switch from.Type {
		case StepCondition:
			var c ConditionConfig
			_ = json.Unmarshal(from.Config, &c)
			b := "yes"
			if c.Mode == "multi" && len(c.Branches) > 0 {
				b = c.Branches[0].ID
			}
			edge.Branch = &b
			edges = append(edges, edge)
		case StepWaitForEvent:
			ev := "EVENT"
			edge.WaitOutcome = &ev
			edges = append(edges, edge)
			var c WaitConfig
			_ = json.Unmarshal(from.Config, &c)
			if c.Timeout != nil {
				timeout := "TIMEOUT"
				e2 := edge
				e2.WaitOutcome = &timeout
				edges = append(edges, e2)
			}
		default:
			edges = append(edges, edge)
		}
		for _, e := range edges {
			e.ID = newID()
			if err := tx.InsertTransition(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// UpdateStep changes a step's name, position, config or template; its
// type is fixed.
func (en *Service) UpdateStep(ctx context.Context, projectID, workflowID, stepID string, in StepInput) (Step, error) {
	var st Step
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		if _, st, err = workflowStep(ctx, tx, projectID, workflowID, stepID); err != nil {
			return err
		}
		var v apierr.Validation
		if in.Type != nil && *in.Type != st.Type {
			v.Add("type", "immutable", "A step's type cannot change: add a new step", *in.Type)
		}
		st.Name = checkStepName(&v, in.Name, st.Name)
		if len(in.Position) > 0 && string(in.Position) != "null" {
			st.Position = checkPosition(&v, in.Position)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if st.Type == StepTrigger && (len(in.Config) > 0 || in.TemplateID != nil) {
			return apierr.BadRequest("The TRIGGER step follows the workflow's trigger: PATCH the workflow's triggerConfig")
		}
		if st.Type != StepTrigger && (len(in.Config) > 0 || in.TemplateID != nil) {
			cfg := in.Config
			if len(cfg) == 0 {
				cfg = st.Config
			}
			tpl := in.TemplateID
			if st.Type == StepSendEmail && tpl != nil && len(in.Config) == 0 {
				cfg = withoutKey(cfg, "templateId")
			}
			if st.Config, st.TemplateID, err = en.checkStepConfig(ctx, tx, projectID, st.Type, cfg, tpl); err != nil {
				return err
			}
		}
		st.UpdatedAt = en.now()
		en.changed(tx, projectID)
		return tx.UpdateStep(ctx, st)
	})
	return st, err
}

func withoutKey(raw json.RawMessage, key string) json.RawMessage {
	m, ok := decodeConfig(raw)
	if !ok {
		return raw
	}
	delete(m, key)
	b, _ := json.Marshal(m)
	return b
}

// DeleteStep removes a step and every step reachable from it, or with
// splice only the step, its incoming transitions moved to its child.
func (en *Service) DeleteStep(ctx context.Context, projectID, workflowID, stepID string, splice bool) error {
	return en.db.Write(ctx, func(tx *storage.Tx) error {
		_, st, err := workflowStep(ctx, tx, projectID, workflowID, stepID)
		if err != nil {
			return err
		}
		if st.Type == StepTrigger {
			return apierr.BadRequest("The TRIGGER step cannot be deleted")
		}
		g, err := LoadGraph(ctx, tx, workflowID)
		if err != nil {
			return err
		}
		en.changed(tx, projectID)
		if !splice {
			return tx.DeleteSteps(ctx, g.Reachable(st.ID))
		}
		if st.Type == StepCondition || st.Type == StepWaitForEvent {
			return apierr.BadRequest("A %s step has several ways out and cannot be spliced out: delete it with what follows", st.Type)
		}
		var incoming []string
		for _, t := range g.In[st.ID] {
			incoming = append(incoming, t.ID)
		}
		if out := g.Out[st.ID]; len(out) > 0 {
			if err := tx.MoveTransitionsTo(ctx, incoming, out[0].ToStepID); err != nil {
				return err
			}
		} else if err := tx.DeleteTransitions(ctx, incoming); err != nil {
			return err
		}
		return tx.DeleteSteps(ctx, []string{st.ID})
	})
}
