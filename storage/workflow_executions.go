package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Execution statuses (DECISIONS.md); "active" is RUNNING or WAITING.
const (
	ExecRunning   = "RUNNING"
	ExecWaiting   = "WAITING"
	ExecCompleted = "COMPLETED"
	ExecExited    = "EXITED"
	ExecFailed    = "FAILED"
	ExecCancelled = "CANCELLED"
)

// StepRef names a step as executions show it.
type StepRef struct {
	ID   string
	Name string
	Type string
}

// ContactRef is {id, email}.
type ContactRef struct {
	ID    string
	Email string
}

// Execution is one contact's run through a workflow.
type Execution struct {
	ID            string
	ProjectID     string
	WorkflowID    string
	ContactID     string
	Contact       ContactRef
	Status        string
	CurrentStepID *string
	CurrentStep   *StepRef
	Context       json.RawMessage
	ExitReason    *string
	SourceEventID *string
	DueAt         *time.Time
	WaitEvent     string
	LastStep      *StepExecution // the latest step execution, read with the execution
	StartedAt     time.Time
	CompletedAt   *time.Time
	CreatedAt     time.Time
}

// Active reports whether the execution is RUNNING or WAITING.
func (e Execution) Active() bool { return e.Status == ExecRunning || e.Status == ExecWaiting }

const executionColumns = `e.id, e.project_id, e.workflow_id, e.contact_id, e.contact_email, e.status, e.current_step_id,
	(SELECT json_object('id', step_id, 'name', step_name, 'type', step_type, 'se', id, 'status', status,
			'output', output, 'error', error, 'after', execute_after, 'started', started_at, 'completed', completed_at)
		FROM workflow_step_executions WHERE execution_id = e.id ORDER BY id DESC LIMIT 1),
	e.context, e.exit_reason, e.source_event_id, e.due_at, COALESCE(e.wait_event, ''), e.started_at, e.completed_at, e.created_at`

// executionColumnsPG is executionColumns on PostgreSQL (a fragment of
// the dialect table): json_build_object for json_object.
const executionColumnsPG = `e.id, e.project_id, e.workflow_id, e.contact_id, e.contact_email, e.status, e.current_step_id,
	(SELECT json_build_object('id', step_id, 'name', step_name, 'type', step_type, 'se', id, 'status', status,
			'output', output, 'error', error, 'after', execute_after, 'started', started_at, 'completed', completed_at)::text
		FROM workflow_step_executions WHERE execution_id = e.id ORDER BY id DESC LIMIT 1),
	e.context, e.exit_reason, e.source_event_id, e.due_at, COALESCE(e.wait_event, ''), e.started_at, e.completed_at, e.created_at`

func scanExecution(s scanner) (Execution, error) {
	var x Execution
	var cur, step, exit, source sql.NullString
	var ctxJSON string
	var due, completed sql.NullInt64
	var started, created int64
	err := s.Scan(&x.ID, &x.ProjectID, &x.WorkflowID, &x.ContactID, &x.Contact.Email, &x.Status, &cur, &step,
		&ctxJSON, &exit, &source, &due, &x.WaitEvent, &started, &completed, &created)
	if err != nil {
		return x, notFound(err)
	}
	x.Contact.ID = x.ContactID
	if cur.Valid {
		x.CurrentStepID = &cur.String
	}
	if step.Valid {
		// json_object's keys (id, se, status, ...) match these fields as
		// encoding/json matches names: regardless of case.
		var r struct {
			StepRef
			SE        string
			Status    string
			Output    *string
			Error     *string
			After     *int64
			Started   int64
			Completed *int64
		}
		if json.Unmarshal([]byte(step.String), &r) == nil {
			x.CurrentStep = &r.StepRef
			last := StepExecution{ID: r.SE, ExecutionID: x.ID, StepID: r.ID, Step: r.StepRef, Status: r.Status,
				Output: json.RawMessage("null"), Error: r.Error, StartedAt: FromMillis(r.Started)}
			if r.Output != nil {
				last.Output = json.RawMessage(*r.Output)
			}
			if r.After != nil {
				t := FromMillis(*r.After)
				last.ExecuteAfter = &t
			}
			if r.Completed != nil {
				t := FromMillis(*r.Completed)
				last.CompletedAt = &t
			}
			last.CreatedAt = last.StartedAt
			x.LastStep = &last
		}
	}
	x.setScanned(ctxJSON, exit, source, due, completed, started, created)
	return x, nil
}

// InsertExecution stores a new execution. With a source event it reports
// false, inserting nothing, when the workflow already ran for that event.
func (tx *Tx) InsertExecution(ctx context.Context, x Execution) (_ bool, err error) {
	defer wrap(&err, "Tx.InsertExecution")
	n, err := affected(tx.Exec(ctx, `INSERT INTO workflow_executions (id, project_id, workflow_id, contact_id, contact_email,
			status, current_step_id, context, exit_reason, source_event_id, due_at, wait_event, started_at, completed_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		x.ID, x.ProjectID, x.WorkflowID, x.ContactID, x.Contact.Email, x.Status, x.CurrentStepID, string(x.Context),
		x.ExitReason, x.SourceEventID, optMillis(x.DueAt), nullable(x.WaitEvent), Millis(x.StartedAt),
		optMillis(x.CompletedAt), Millis(x.CreatedAt)))
	return n > 0, err
}

// SaveExecution writes an execution's state.
func (tx *Tx) SaveExecution(ctx context.Context, x Execution) (err error) {
	defer wrap(&err, "Tx.SaveExecution")
	_, err = tx.Exec(ctx, `UPDATE workflow_executions SET status = ?, current_step_id = ?, context = ?, exit_reason = ?,
		due_at = ?, wait_event = ?, completed_at = ? WHERE id = ?`,
		x.Status, x.CurrentStepID, string(x.Context), x.ExitReason, optMillis(x.DueAt), nullable(x.WaitEvent),
		optMillis(x.CompletedAt), x.ID)
	return err
}

// ExecutionByID finds an execution of a workflow.
func ExecutionByID(ctx context.Context, q Querier, workflowID, id string) (_ Execution, err error) {
	defer wrap(&err, "ExecutionByID")
	return scanExecution(q.QueryRow(ctx, `SELECT `+executionColumns+` FROM workflow_executions e
		WHERE e.workflow_id = ? AND e.id = ?`, workflowID, id))
}

// ExecutionsByIDs reads executions by id, in no particular order.
func ExecutionsByIDs(ctx context.Context, q Querier, ids []string) (_ []Execution, err error) {
	defer wrap(&err, "ExecutionsByIDs")
	rows, err := q.Query(ctx, `SELECT `+executionColumns+` FROM workflow_executions e
		WHERE e.id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	return collect(rows, err, scanExecution)
}

// ExecutionByIDAny finds an execution by id alone (the engine).
func ExecutionByIDAny(ctx context.Context, q Querier, id string) (_ Execution, err error) {
	defer wrap(&err, "ExecutionByIDAny")
	return scanExecution(q.QueryRow(ctx, `SELECT `+executionColumns+` FROM workflow_executions e WHERE e.id = ?`, id))
}

const executionFilterSQL = ` FROM workflow_executions e WHERE e.workflow_id = ?1 AND (?2 = '' OR e.status = ?2)`

// ListExecutions returns up to limit executions of a workflow, newest
// first, after the cursor, optionally of one status.
func ListExecutions(ctx context.Context, q Querier, workflowID, status, afterID string, limit int) (_ []Execution, err error) {
	defer wrap(&err, "ListExecutions")
	rows, err := q.Query(ctx, `SELECT `+executionColumns+executionFilterSQL+` AND (?3 = '' OR e.id < ?3)
		ORDER BY e.id DESC LIMIT ?4`, workflowID, status, afterID, limit)
	return collect(rows, err, scanExecution)
}

// CountExecutions counts a workflow's executions, optionally of one status.
func CountExecutions(ctx context.Context, q Querier, workflowID, status string) (_ int, err error) {
	defer wrap(&err, "CountExecutions")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+executionFilterSQL, workflowID, status).Scan(&n)
	return n, err
}

// CountActiveExecutions counts a workflow's RUNNING and WAITING executions.
func CountActiveExecutions(ctx context.Context, q Querier, workflowID string) (_ int, err error) {
	defer wrap(&err, "CountActiveExecutions")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM workflow_executions WHERE workflow_id = ? AND status IN ('RUNNING', 'WAITING')`,
		workflowID).Scan(&n)
	return n, err
}

// ContactExecutions reports whether a contact has any execution of a
// workflow, and whether one is active: what re-entry rules need.
func ContactExecutions(ctx context.Context, q Querier, workflowID, contactID string) (any, active bool, err error) {
	defer wrap(&err, "ContactExecutions")
	var total, act int
	err = q.QueryRow(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE status IN ('RUNNING', 'WAITING')) FROM workflow_executions
		WHERE contact_id = ? AND workflow_id = ?`, contactID, workflowID).Scan(&total, &act)
	return total > 0, act > 0, err
}

// ActiveExecutions lists up to limit active executions of a workflow.
func ActiveExecutions(ctx context.Context, q Querier, workflowID string, limit int) (_ []Execution, err error) {
	defer wrap(&err, "ActiveExecutions")
	rows, err := q.Query(ctx, `SELECT `+executionColumns+` FROM workflow_executions e
		WHERE e.workflow_id = ? AND e.status IN ('RUNNING', 'WAITING') LIMIT ?`, workflowID, limit)
	return collect(rows, err, scanExecution)
}

// NextDueExecution is when the earliest execution falls due.
func NextDueExecution(ctx context.Context, q Querier) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "NextDueExecution")
	var next sql.NullInt64
	err = q.QueryRow(ctx, `SELECT MIN(due_at) FROM workflow_executions WHERE due_at IS NOT NULL`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, err
	}
	return FromMillis(next.Int64), true, nil
}

// WaitingForEvent lists a contact's executions waiting for an event name.
func WaitingForEvent(ctx context.Context, q Querier, contactID, name string) (_ []Execution, err error) {
	defer wrap(&err, "WaitingForEvent")
	rows, err := q.Query(ctx, `SELECT `+executionColumns+` FROM workflow_executions e
		WHERE e.contact_id = ? AND e.wait_event = ? AND e.status = 'WAITING'`, contactID, name)
	return collect(rows, err, scanExecution)
}

// UpcomingExecution is a workflow step that will run at a known time.
type UpcomingExecution struct {
	ExecutionID  string
	WorkflowID   string
	WorkflowName string
	StepID       string
	StepType     string
	ContactID    string
	DueAt        time.Time
}

// UpcomingExecutions lists the executions of a project waiting on a timer,
// soonest first.
func UpcomingExecutions(ctx context.Context, q Querier, projectID string, limit int) (_ []UpcomingExecution, err error) {
	defer wrap(&err, "UpcomingExecutions")
	rows, err := q.Query(ctx, `SELECT e.id, e.workflow_id, w.name, COALESCE(e.current_step_id, ''),
			COALESCE((SELECT type FROM workflow_steps WHERE id = e.current_step_id), ''), e.contact_id, e.due_at
		FROM workflow_executions e JOIN workflows w ON w.id = e.workflow_id
		WHERE e.project_id = ? AND e.status = 'WAITING' AND e.due_at IS NOT NULL ORDER BY e.due_at LIMIT ?`, projectID, limit)
	return collect(rows, err, func(s scanner) (UpcomingExecution, error) {
		var u UpcomingExecution
		var due int64
		err := s.Scan(&u.ExecutionID, &u.WorkflowID, &u.WorkflowName, &u.StepID, &u.StepType, &u.ContactID, &due)
		u.DueAt = FromMillis(due)
		return u, err
	})
}

// setScanned fills an execution's columns that both its scans (the API's
// and the engine's) read the same way.
func (x *Execution) setScanned(ctxJSON string, exit, source sql.NullString, due, completed sql.NullInt64, started, created int64) {
	x.Context = json.RawMessage(ctxJSON)
	if exit.Valid {
		x.ExitReason = &exit.String
	}
	if source.Valid {
		x.SourceEventID = &source.String
	}
	x.DueAt, x.CompletedAt = optTime(due), optTime(completed)
	x.StartedAt, x.CreatedAt = FromMillis(started), FromMillis(created)
}
