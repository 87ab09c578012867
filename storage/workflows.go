package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Workflow is an automation: a trigger and a graph of steps.
type Workflow struct {
	ID            string
	ProjectID     string
	Name          string
	Description   *string
	Enabled       bool
	AllowReentry  bool
	TriggerType   string
	TriggerConfig json.RawMessage
	EventName     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const workflowColumns = `id, project_id, name, description, enabled, allow_reentry, trigger_type, trigger_config,
	COALESCE(event_name, ''), created_at, updated_at`

func scanWorkflow(s scanner) (Workflow, error) {
	var w Workflow
	var desc sql.NullString
	var cfg string
	var created, updated int64
	err := s.Scan(&w.ID, &w.ProjectID, &w.Name, &desc, &w.Enabled, &w.AllowReentry, &w.TriggerType, &cfg,
		&w.EventName, &created, &updated)
	if desc.Valid {
		w.Description = &desc.String
	}
	w.TriggerConfig = json.RawMessage(cfg)
	w.CreatedAt, w.UpdatedAt = FromMillis(created), FromMillis(updated)
	return w, notFound(err)
}

// InsertWorkflow stores a new workflow.
func (tx *Tx) InsertWorkflow(ctx context.Context, w Workflow) (err error) {
	defer wrap(&err, "Tx.InsertWorkflow")
	_, err = tx.Exec(ctx, `INSERT INTO workflows (id, project_id, name, description, enabled, allow_reentry, trigger_type,
		trigger_config, event_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.ProjectID, w.Name, w.Description, w.Enabled, w.AllowReentry, w.TriggerType, string(w.TriggerConfig),
		nullable(w.EventName), Millis(w.CreatedAt), Millis(w.UpdatedAt))
	return err
}

// UpdateWorkflow writes a workflow's editable fields.
func (tx *Tx) UpdateWorkflow(ctx context.Context, w Workflow) (err error) {
	defer wrap(&err, "Tx.UpdateWorkflow")
	_, err = tx.Exec(ctx, `UPDATE workflows SET name = ?, description = ?, enabled = ?, allow_reentry = ?,
		trigger_type = ?, trigger_config = ?, event_name = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
		w.Name, w.Description, w.Enabled, w.AllowReentry, w.TriggerType, string(w.TriggerConfig),
		nullable(w.EventName), Millis(w.UpdatedAt), w.ID, w.ProjectID)
	return err
}

// DeleteWorkflow removes a workflow with its steps, transitions and
// executions.
func (tx *Tx) DeleteWorkflow(ctx context.Context, projectID, id string) (err error) {
	defer wrap(&err, "Tx.DeleteWorkflow")
	_, err = tx.Exec(ctx, `DELETE FROM workflows WHERE project_id = ? AND id = ?`, projectID, id)
	return err
}

// WorkflowByID finds a workflow of a project.
func WorkflowByID(ctx context.Context, q Querier, projectID, id string) (_ Workflow, err error) {
	defer wrap(&err, "WorkflowByID")
	return scanWorkflow(q.QueryRow(ctx, `SELECT `+workflowColumns+` FROM workflows WHERE project_id = ? AND id = ?`, projectID, id))
}

// WorkflowFilter selects workflows for GET /workflows.
type WorkflowFilter struct {
	ProjectID string
	Search    string // name or description, any case
	Enabled   *bool
}

const workflowFilterSQL = ` FROM workflows WHERE project_id = ?1
	AND (?2 = '' OR instr(lower(name), lower(?2)) > 0 OR instr(lower(COALESCE(description, '')), lower(?2)) > 0)
	AND (enabled = ?3 OR ?3 IS NULL)`

// ListWorkflows returns up to limit workflows, newest first, after the
// cursor (UUIDv7 ids are in creation order).
func ListWorkflows(ctx context.Context, q Querier, f WorkflowFilter, afterID string, limit int) (_ []Workflow, err error) {
	defer wrap(&err, "ListWorkflows")
	rows, err := q.Query(ctx, `SELECT `+workflowColumns+workflowFilterSQL+` AND (?4 = '' OR id < ?4) ORDER BY id DESC LIMIT ?5`,
		f.ProjectID, f.Search, f.Enabled, afterID, limit)
	return collect(rows, err, scanWorkflow)
}

// CountWorkflows counts the workflows a filter selects.
func CountWorkflows(ctx context.Context, q Querier, f WorkflowFilter) (_ int, err error) {
	defer wrap(&err, "CountWorkflows")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+workflowFilterSQL, f.ProjectID, f.Search, f.Enabled).Scan(&n)
	return n, err
}

// EnabledEventWorkflows lists a project's enabled EVENT workflows, the
// engine's trigger table.
func EnabledEventWorkflows(ctx context.Context, q Querier, projectID string) (_ []Workflow, err error) {
	defer wrap(&err, "EnabledEventWorkflows")
	rows, err := q.Query(ctx, `SELECT `+workflowColumns+` FROM workflows
		WHERE project_id = ? AND enabled AND trigger_type = 'EVENT' AND event_name IS NOT NULL`, projectID)
	return collect(rows, err, scanWorkflow)
}

// WorkflowsByEvent lists the workflows triggered by an event name, for
// GET /events/{name}/usage.
func WorkflowsByEvent(ctx context.Context, q Querier, projectID, name string) (_ []Workflow, err error) {
	defer wrap(&err, "WorkflowsByEvent")
	rows, err := q.Query(ctx, `SELECT `+workflowColumns+` FROM workflows WHERE project_id = ? AND event_name = ?
		ORDER BY id`, projectID, name)
	return collect(rows, err, scanWorkflow)
}

// AllWorkflows lists every workflow of every project (for the CLI).
func AllWorkflows(ctx context.Context, q Querier) (_ []Workflow, err error) {
	defer wrap(&err, "AllWorkflows")
	rows, err := q.Query(ctx, `SELECT `+workflowColumns+` FROM workflows ORDER BY project_id, id`)
	return collect(rows, err, scanWorkflow)
}

// WorkflowByIDAnyProject finds a workflow whatever its project (for the CLI).
func WorkflowByIDAnyProject(ctx context.Context, q Querier, id string) (_ Workflow, err error) {
	defer wrap(&err, "WorkflowByIDAnyProject")
	return scanWorkflow(q.QueryRow(ctx, `SELECT `+workflowColumns+` FROM workflows WHERE id = ?`, id))
}
