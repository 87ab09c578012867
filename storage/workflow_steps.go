package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// WorkflowStep is one node of a workflow's graph.
type WorkflowStep struct {
	ID         string          `json:"id"`
	WorkflowID string          `json:"workflowId"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Position   json.RawMessage `json:"position"`
	Config     json.RawMessage `json:"config"`
	TemplateID *string         `json:"templateId"`
	CreatedAt  time.Time       `json:"createdAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`

	// Steps and transitions share one shape (contracts/workflows.md): a
	// step's edge fields are always null.
	Condition   any     `json:"condition"`
	Branch      *string `json:"branch"`
	WaitOutcome *string `json:"waitOutcome"`
}

const stepColumns = `id, workflow_id, type, name, position, config, template_id, created_at, updated_at`

func scanStep(s scanner) (WorkflowStep, error) {
	var st WorkflowStep
	var pos, cfg string
	var tpl sql.NullString
	var created, updated int64
	err := s.Scan(&st.ID, &st.WorkflowID, &st.Type, &st.Name, &pos, &cfg, &tpl, &created, &updated)
	st.Position, st.Config = json.RawMessage(pos), json.RawMessage(cfg)
	if tpl.Valid {
		st.TemplateID = &tpl.String
	}
	st.CreatedAt, st.UpdatedAt = FromMillis(created), FromMillis(updated)
	return st, notFound(err)
}

// InsertStep stores a new step.
func (tx *Tx) InsertStep(ctx context.Context, st WorkflowStep) (err error) {
	defer wrap(&err, "Tx.InsertStep")
	_, err = tx.Exec(ctx, `INSERT INTO workflow_steps (`+stepColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		st.ID, st.WorkflowID, st.Type, st.Name, string(st.Position), string(st.Config), st.TemplateID,
		Millis(st.CreatedAt), Millis(st.UpdatedAt))
	return err
}

// UpdateStep writes a step's editable fields.
func (tx *Tx) UpdateStep(ctx context.Context, st WorkflowStep) (err error) {
	defer wrap(&err, "Tx.UpdateStep")
	_, err = tx.Exec(ctx, `UPDATE workflow_steps SET name = ?, position = ?, config = ?, template_id = ?, updated_at = ?
		WHERE id = ?`, st.Name, string(st.Position), string(st.Config), st.TemplateID, Millis(st.UpdatedAt), st.ID)
	return err
}

// DeleteSteps removes steps and, through foreign keys, their transitions.
func (tx *Tx) DeleteSteps(ctx context.Context, ids []string) (err error) {
	defer wrap(&err, "Tx.DeleteSteps")
	_, err = tx.Exec(ctx, `DELETE FROM workflow_steps WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	return err
}

// WorkflowSteps lists a workflow's steps, oldest first.
func WorkflowSteps(ctx context.Context, q Querier, workflowID string) (_ []WorkflowStep, err error) {
	defer wrap(&err, "WorkflowSteps")
	rows, err := q.Query(ctx, `SELECT `+stepColumns+` FROM workflow_steps WHERE workflow_id = ? ORDER BY created_at, id`, workflowID)
	return collect(rows, err, scanStep)
}

// StepByID finds a step.
func StepByID(ctx context.Context, q Querier, id string) (_ WorkflowStep, err error) {
	defer wrap(&err, "StepByID")
	return scanStep(q.QueryRow(ctx, `SELECT `+stepColumns+` FROM workflow_steps WHERE id = ?`, id))
}

// TemplateStepRef is a step that sends a template.
type TemplateStepRef struct {
	WorkflowID   string `json:"workflowId"`
	WorkflowName string `json:"workflowName"`
	StepID       string `json:"stepId"`
	StepName     string `json:"stepName"`
}

// StepsUsingTemplate lists the steps that send a template.
func StepsUsingTemplate(ctx context.Context, q Querier, projectID, templateID string) (_ []TemplateStepRef, err error) {
	defer wrap(&err, "StepsUsingTemplate")
	rows, err := q.Query(ctx, `SELECT w.id, w.name, s.id, s.name FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
		WHERE w.project_id = ? AND s.template_id = ? ORDER BY w.id, s.id`, projectID, templateID)
	return collect(rows, err, func(s scanner) (TemplateStepRef, error) {
		var r TemplateStepRef
		return r, s.Scan(&r.WorkflowID, &r.WorkflowName, &r.StepID, &r.StepName)
	})
}

// WaitEventNames lists the event names WAIT_FOR_EVENT steps of a project
// await, and those its waiting executions await (a step edited since).
func WaitEventNames(ctx context.Context, q Querier, projectID string) (_ []string, err error) {
	defer wrap(&err, "WaitEventNames")
	rows, err := q.Query(ctx, `SELECT s.config ->> 'eventName' FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
		WHERE w.project_id = ?1 AND s.type = 'WAIT_FOR_EVENT' AND s.config ->> 'eventName' IS NOT NULL
		UNION SELECT wait_event FROM workflow_executions WHERE project_id = ?1 AND wait_event IS NOT NULL`, projectID)
	return collect(rows, err, func(s scanner) (string, error) {
		var n string
		return n, s.Scan(&n)
	})
}

// WorkflowTransition is an edge of a workflow's graph.
type WorkflowTransition struct {
	ID          string    `json:"id"`
	WorkflowID  string    `json:"workflowId"`
	FromStepID  string    `json:"fromStepId"`
	ToStepID    string    `json:"toStepId"`
	Condition   any       `json:"condition"` // {branch} or null
	Branch      *string   `json:"branch"`
	WaitOutcome *string   `json:"waitOutcome"`
	Priority    int       `json:"priority"`
	TemplateID  *string   `json:"templateId"` // always null: the shape steps share
	CreatedAt   time.Time `json:"createdAt"`
}

const transitionColumns = `id, workflow_id, from_step_id, to_step_id, branch, wait_outcome, priority, created_at`

func scanTransition(s scanner) (WorkflowTransition, error) {
	var t WorkflowTransition
	var branch, outcome sql.NullString
	var created int64
	err := s.Scan(&t.ID, &t.WorkflowID, &t.FromStepID, &t.ToStepID, &branch, &outcome, &t.Priority, &created)
	if branch.Valid {
		t.Branch = &branch.String
		t.Condition = map[string]string{"branch": branch.String}
	}
	if outcome.Valid {
		t.WaitOutcome = &outcome.String
	}
	t.CreatedAt = FromMillis(created)
	return t, notFound(err)
}

// InsertTransition stores a new transition.
func (tx *Tx) InsertTransition(ctx context.Context, t WorkflowTransition) (err error) {
	defer wrap(&err, "Tx.InsertTransition")
	_, err = tx.Exec(ctx, `INSERT INTO workflow_transitions (`+transitionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.WorkflowID, t.FromStepID, t.ToStepID, t.Branch, t.WaitOutcome, t.Priority, Millis(t.CreatedAt))
	return err
}

// MoveTransitionsTo points the given transitions at another step.
func (tx *Tx) MoveTransitionsTo(ctx context.Context, ids []string, toStepID string) (err error) {
	defer wrap(&err, "Tx.MoveTransitionsTo")
	_, err = tx.Exec(ctx, `UPDATE workflow_transitions SET to_step_id = ? WHERE id IN (SELECT value FROM json_each(?))`,
		toStepID, jsonArray(ids))
	return err
}

// DeleteTransition removes a transition of a workflow.
func (tx *Tx) DeleteTransition(ctx context.Context, workflowID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteTransition")
	n, err := affected(tx.Exec(ctx, `DELETE FROM workflow_transitions WHERE workflow_id = ? AND id = ?`, workflowID, id))
	return n > 0, err
}

// DeleteTransitions removes transitions by id.
func (tx *Tx) DeleteTransitions(ctx context.Context, ids []string) (err error) {
	defer wrap(&err, "Tx.DeleteTransitions")
	_, err = tx.Exec(ctx, `DELETE FROM workflow_transitions WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	return err
}

// WorkflowTransitions lists a workflow's transitions, oldest first.
func WorkflowTransitions(ctx context.Context, q Querier, workflowID string) (_ []WorkflowTransition, err error) {
	defer wrap(&err, "WorkflowTransitions")
	rows, err := q.Query(ctx, `SELECT `+transitionColumns+` FROM workflow_transitions WHERE workflow_id = ?
		ORDER BY created_at, id`, workflowID)
	return collect(rows, err, scanTransition)
}
