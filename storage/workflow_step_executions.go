package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Step execution statuses.
const (
	StepRunning   = "RUNNING"
	StepScheduled = "SCHEDULED" // a DELAY until executeAfter
	StepWaiting   = "WAITING"   // a WAIT_FOR_EVENT until its event or executeAfter
	StepCompleted = "COMPLETED"
	StepFailed    = "FAILED"
	StepCancelled = "CANCELLED"
)

// StepExecution is one step's run inside an execution, made as it starts.
type StepExecution struct {
	ID           string          `json:"id"`
	ExecutionID  string          `json:"executionId"`
	StepID       string          `json:"stepId"`
	Step         StepRef         `json:"step"`
	Status       string          `json:"status"`
	Output       json.RawMessage `json:"output"`
	Error        *string         `json:"error"`
	ExecuteAfter *time.Time      `json:"executeAfter"`
	StartedAt    time.Time       `json:"startedAt"`
	CompletedAt  *time.Time      `json:"completedAt"`
	CreatedAt    time.Time       `json:"createdAt"` // made as it starts: StartedAt
}

const stepExecColumns = `id, execution_id, step_id, step_name, step_type, status, output, error, execute_after, started_at, completed_at`

func scanStepExec(s scanner) (StepExecution, error) {
	var x StepExecution
	var out, errText sql.NullString
	var after, completed sql.NullInt64
	var started int64
	err := s.Scan(&x.ID, &x.ExecutionID, &x.StepID, &x.Step.Name, &x.Step.Type, &x.Status, &out, &errText,
		&after, &started, &completed)
	x.Step.ID = x.StepID
	x.Output = json.RawMessage("null")
	if out.Valid {
		x.Output = json.RawMessage(out.String)
	}
	if errText.Valid {
		x.Error = &errText.String
	}
	x.ExecuteAfter, x.CompletedAt = optTime(after), optTime(completed)
	x.StartedAt = FromMillis(started)
	x.CreatedAt = x.StartedAt
	return x, notFound(err)
}

func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return string(raw)
}

// SaveStepExec inserts or rewrites a step execution.
func (tx *Tx) SaveStepExec(ctx context.Context, x StepExecution) (err error) {
	defer wrap(&err, "Tx.SaveStepExec")
	_, err = tx.Exec(ctx, `INSERT INTO workflow_step_executions (`+stepExecColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, output = excluded.output, error = excluded.error,
			execute_after = excluded.execute_after, completed_at = excluded.completed_at`,
		x.ID, x.ExecutionID, x.StepID, x.Step.Name, x.Step.Type, x.Status, nullJSON(x.Output), x.Error,
		optMillis(x.ExecuteAfter), Millis(x.StartedAt), optMillis(x.CompletedAt))
	return err
}

// StepExecs lists an execution's step executions in run order.
func StepExecs(ctx context.Context, q Querier, executionID string) (_ []StepExecution, err error) {
	defer wrap(&err, "StepExecs")
	rows, err := q.Query(ctx, `SELECT `+stepExecColumns+` FROM workflow_step_executions WHERE execution_id = ? ORDER BY id`, executionID)
	return collect(rows, err, scanStepExec)
}

// LastStepExec is an execution's latest step execution.
func LastStepExec(ctx context.Context, q Querier, executionID string) (_ StepExecution, err error) {
	defer wrap(&err, "LastStepExec")
	return scanStepExec(q.QueryRow(ctx, `SELECT `+stepExecColumns+` FROM workflow_step_executions WHERE execution_id = ?
		ORDER BY id DESC LIMIT 1`, executionID))
}

// StepExecByID finds a step execution.
func StepExecByID(ctx context.Context, q Querier, id string) (_ StepExecution, err error) {
	defer wrap(&err, "StepExecByID")
	return scanStepExec(q.QueryRow(ctx, `SELECT `+stepExecColumns+` FROM workflow_step_executions WHERE id = ?`, id))
}

// CancelOpenStepExecs ends an execution's unfinished step executions.
func (tx *Tx) CancelOpenStepExecs(ctx context.Context, executionID string, now time.Time) (err error) {
	defer wrap(&err, "Tx.CancelOpenStepExecs")
	_, err = tx.Exec(ctx, `UPDATE workflow_step_executions SET status = 'CANCELLED', completed_at = ?
		WHERE execution_id = ? AND status IN ('RUNNING', 'SCHEDULED', 'WAITING')`, Millis(now), executionID)
	return err
}

// InboxEvent is an event waiting for the workflow engine.
type InboxEvent struct {
	Seq       int64
	ProjectID string
	EventID   string
	ContactID string
	Name      string
	Data      json.RawMessage
	CreatedAt time.Time
}

// InsertInbox queues an event for the engine.
func (tx *Tx) InsertInbox(ctx context.Context, e InboxEvent) (err error) {
	defer wrap(&err, "Tx.InsertInbox")
	_, err = tx.Exec(ctx, `INSERT INTO workflow_inbox (project_id, event_id, contact_id, name, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, e.ProjectID, e.EventID, e.ContactID, e.Name, string(e.Data), Millis(e.CreatedAt))
	return err
}

// TakeInbox returns up to limit queued events, oldest first, and deletes
// them: the caller handles them in the same write.
func (tx *Tx) TakeInbox(ctx context.Context, limit int) (_ []InboxEvent, err error) {
	defer wrap(&err, "Tx.TakeInbox")
	rows, err := tx.Query(ctx, `DELETE FROM workflow_inbox WHERE seq IN (SELECT seq FROM workflow_inbox ORDER BY seq LIMIT ?)
		RETURNING seq, project_id, event_id, contact_id, name, data, created_at`, limit)
	evs, err := collect(rows, err, func(s scanner) (InboxEvent, error) {
		var e InboxEvent
		var data string
		var created int64
		err := s.Scan(&e.Seq, &e.ProjectID, &e.EventID, &e.ContactID, &e.Name, &data, &created)
		e.Data, e.CreatedAt = json.RawMessage(data), FromMillis(created)
		return e, err
	})
	// RETURNING gives no order guarantee.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].Seq < evs[j-1].Seq; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	return evs, err
}

// RecentEventData returns the data of a project's last events, of one
// name if given, for GET /workflows/fields.
func RecentEventData(ctx context.Context, q Querier, projectID, name string, limit int) (_ []json.RawMessage, err error) {
	defer wrap(&err, "RecentEventData")
	rows, err := q.Query(ctx, `SELECT data FROM events WHERE project_id = ?1 AND (?2 = '' OR name = ?2)
		ORDER BY id DESC LIMIT ?3`, projectID, name, limit)
	return collect(rows, err, func(s scanner) (json.RawMessage, error) {
		var d string
		err := s.Scan(&d)
		return json.RawMessage(d), err
	})
}

// PullJobEarlier moves a queued job with a unique key to runAt if it was
// due later, so that a sleeping timer job wakes for an earlier timer.
func (tx *Tx) PullJobEarlier(ctx context.Context, uniqueKey string, runAt time.Time) (err error) {
	defer wrap(&err, "Tx.PullJobEarlier")
	_, err = tx.Exec(ctx, `UPDATE jobs SET run_at = ?1 WHERE unique_key = ?2 AND state = 'queued' AND run_at > ?1`,
		Millis(runAt), uniqueKey)
	return err
}

// InsertEventIfContact stores an event on its contact, or on none if the
// contact is gone.
func (tx *Tx) InsertEventIfContact(ctx context.Context, e Event) (err error) {
	defer wrap(&err, "Tx.InsertEventIfContact")
	_, err = tx.Exec(ctx, `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
		VALUES (?, ?, (SELECT id FROM contacts WHERE id = ?), ?, ?, ?)`,
		e.ID, e.ProjectID, e.ContactID, e.Name, string(e.Data), Millis(e.CreatedAt))
	return err
}
