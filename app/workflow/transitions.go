package workflow

import (
	"github.com/heraldmail/herald/app/apierr"

	"context"
	"encoding/json"
	"slices"

	"github.com/heraldmail/herald/storage"
)

// Transition is an edge between two steps.
type Transition = storage.WorkflowTransition

// TransitionInput is the body of POST …/transitions.
type TransitionInput struct {
	FromStepID  *string
	ToStepID    *string
	Condition   json.RawMessage // {branch}
	Branch      *string
	WaitOutcome *string
	Priority    *int
}

// AddTransition links two steps of a workflow, refusing any edge that
// would make the graph something the engine cannot run.
func (en *Service) AddTransition(ctx context.Context, projectID, workflowID string, in TransitionInput) (Transition, error) {
	var t Transition
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.WorkflowByID(ctx, tx, projectID, workflowID); err != nil {
			return workflowErr(err)
		}
		var v apierr.Validation
		if in.FromStepID == nil || *in.FromStepID == "" {
			v.Add("fromStepId", "invalid_type", "Required", "undefined")
		}
		if in.ToStepID == nil || *in.ToStepID == "" {
			v.Add("toStepId", "invalid_type", "Required", "undefined")
		}
		branch := in.Branch
		if len(in.Condition) > 0 && string(in.Condition) != "null" {
			var c struct {
				Branch *string `json:"branch"`
			}
			if json.Unmarshal(in.Condition, &c) != nil {
				v.Add("condition", "invalid_type", "Condition must be {branch}", string(in.Condition))
			} else if c.Branch != nil {
				branch = c.Branch
			}
		}
		if in.WaitOutcome != nil && *in.WaitOutcome != "EVENT" && *in.WaitOutcome != "TIMEOUT" {
			v.Add("waitOutcome", "invalid_enum_value", "Wait outcome must be EVENT or TIMEOUT", *in.WaitOutcome)
		}
		if err := v.Err(); err != nil {
			return err
		}
		g, err := LoadGraph(ctx, tx, workflowID)
		if err != nil {
			return err
		}
		from, ok1 := g.ByID[*in.FromStepID]
		to, ok2 := g.ByID[*in.ToStepID]
		if !ok1 || !ok2 {
			return apierr.NotFound("NOT_FOUND", "Step not found in this workflow")
		}
		if err := checkEdge(g, from, to, branch, in.WaitOutcome); err != nil {
			return err
		}
		t = Transition{ID: newID(), WorkflowID: workflowID, FromStepID: from.ID, ToStepID: to.ID,
			Branch: branch, WaitOutcome: in.WaitOutcome, CreatedAt: en.now()}
		if from.Type != StepCondition {
			t.Branch = nil
		}
		if in.Priority != nil {
			t.Priority = *in.Priority
		}
		if t.Branch != nil {
			t.Condition = map[string]string{"branch": *t.Branch}
		}
		return tx.InsertTransition(ctx, t)
	})
	return t, err
}

// checkEdge reports, as a 400, what is wrong with an edge from -> to.
func checkEdge(g *Graph, from, to storage.WorkflowStep, branch, outcome *string) error {
	switch {
	case from.ID == to.ID:
		return apierr.BadRequest("A step cannot link to itself")
	case slices.Contains(g.Reachable(to.ID), from.ID):
		return apierr.BadRequest("This transition would make a cycle")
	case to.Type == StepTrigger:
		return apierr.BadRequest("Nothing can link into the TRIGGER step")
	case from.Type == StepExit:
		return apierr.BadRequest("An EXIT step ends the execution: nothing can follow it")
	case branch != nil && from.Type != StepCondition:
		return apierr.BadRequest("Only transitions from a CONDITION step take a branch")
	case outcome != nil && from.Type != StepWaitForEvent:
		return apierr.BadRequest("Only transitions from a WAIT_FOR_EVENT step take a waitOutcome")
	}
	out := g.Out[from.ID]
	switch from.Type {
	case StepCondition:
		return checkBranch(from, out, branch)
	case StepWaitForEvent:
		if outcome == nil {
			return apierr.BadRequest("A transition from a WAIT_FOR_EVENT step needs waitOutcome EVENT or TIMEOUT")
		}
		for _, t := range out {
			if t.WaitOutcome != nil && *t.WaitOutcome == *outcome {
				return apierr.BadRequest("The %s outcome of this step is already linked", *outcome)
			}
		}
		var c WaitConfig
		_ = json.Unmarshal(from.Config, &c)
		if *outcome == "TIMEOUT" && c.Timeout == nil {
			return apierr.BadRequest("This WAIT_FOR_EVENT step has no timeout: it has no TIMEOUT outcome")
		}
	default:
		if len(out) > 0 {
			return apierr.BadRequest("A %s step has one way out, and it is already linked", from.Type)
		}
	}
	return nil
}

func checkBranch(from storage.WorkflowStep, out []storage.WorkflowTransition, branch *string) error {
	if branch == nil || *branch == "" {
		return apierr.BadRequest("A transition from a CONDITION step needs a branch")
	}
	var c ConditionConfig
	_ = json.Unmarshal(from.Config, &c)
	valid := []string{"yes", "no"}
	if c.Mode == "multi" {
		valid = []string{"default"}
		for _, b := range c.Branches {
			valid = append(valid, b.ID)
		}
	}
	if !slices.Contains(valid, *branch) {
		return apierr.BadRequest("Unknown branch %q: this step's branches are %v", *branch, valid)
	}
	for _, t := range out {
		if t.Branch != nil && *t.Branch == *branch {
			return apierr.BadRequest("The %q branch of this step is already linked", *branch)
		}
	}
	return nil
}

// DeleteTransition removes a transition.
func (en *Service) DeleteTransition(ctx context.Context, projectID, workflowID, id string) error {
	return en.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.WorkflowByID(ctx, tx, projectID, workflowID); err != nil {
			return workflowErr(err)
		}
		ok, err := tx.DeleteTransition(ctx, workflowID, id)
		if err == nil && !ok {
			return apierr.NotFound("NOT_FOUND", "Transition not found")
		}
		return err
	})
}
