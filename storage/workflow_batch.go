package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// The workflow engine moves hundreds of executions in one write when
// timers fall due together. These are its batch forms: one read of the
// due executions with their latest step execution as plain columns, one
// read of their contacts, and the rows the batch writes (step executions,
// executions, activity items) gathered and written with multi-row
// statements at the end of the write, so that a statement's fixed cost
// (binding, opening its cursors, the driver's round trip) is paid once
// per chunk rather than once per row.

// DueRef is a due execution as the engine first sees it, outside the
// write: its id and the type of its latest step execution.
type DueRef struct {
	ID       string
	StepType string // "" before its first step
}

// DueExecutionRefs lists up to limit executions due by now, earliest
// first: a range of the due index and one probe per row for the type of
// its latest step execution.
func DueExecutionRefs(ctx context.Context, q Querier, now time.Time, limit int) (_ []DueRef, err error) {
	defer wrap(&err, "DueExecutionRefs")
	rows, err := q.Query(ctx, `SELECT e.id, COALESCE((SELECT step_type FROM workflow_step_executions
			WHERE execution_id = e.id ORDER BY id DESC LIMIT 1), '')
		FROM workflow_executions e WHERE e.due_at IS NOT NULL AND e.due_at <= ? ORDER BY e.due_at LIMIT ?`, Millis(now), limit)
	return collect(rows, err, func(s scanner) (DueRef, error) {
		var d DueRef
		err := s.Scan(&d.ID, &d.StepType)
		return d, err
	})
}

// engineExecutionColumns are an execution's columns and its latest step
// execution's (all NULL before its first step), joined rather than
// encoded as JSON as executionColumns does for the API's lists.
const engineExecutionColumns = `e.id, e.project_id, e.workflow_id, e.contact_id, e.contact_email, e.status, e.current_step_id,
	e.context, e.exit_reason, e.source_event_id, e.due_at, COALESCE(e.wait_event, ''), e.started_at, e.completed_at, e.created_at,
	s.id, s.step_id, s.step_name, s.step_type, s.status, s.output, s.error, s.execute_after, s.started_at, s.completed_at`

func scanEngineExecution(s scanner) (Execution, error) {
	var x Execution
	var cur, exit, source sql.NullString
	var ctxJSON string
	var due, completed sql.NullInt64
	var started, created int64
	var seID, seStep, seName, seType, seStatus, seOut, seErr sql.NullString
	var seAfter, seStarted, seCompleted sql.NullInt64
	err := s.Scan(&x.ID, &x.ProjectID, &x.WorkflowID, &x.ContactID, &x.Contact.Email, &x.Status, &cur,
		&ctxJSON, &exit, &source, &due, &x.WaitEvent, &started, &completed, &created,
		&seID, &seStep, &seName, &seType, &seStatus, &seOut, &seErr, &seAfter, &seStarted, &seCompleted)
	if err != nil {
		return x, notFound(err)
	}
	x.Contact.ID = x.ContactID
	if cur.Valid {
		x.CurrentStepID = &cur.String
	}
	x.setScanned(ctxJSON, exit, source, due, completed, started, created)
	if seID.Valid {
		ref := StepRef{ID: seStep.String, Name: seName.String, Type: seType.String}
		last := StepExecution{ID: seID.String, ExecutionID: x.ID, StepID: ref.ID, Step: ref, Status: seStatus.String,
			Output: json.RawMessage("null"), ExecuteAfter: optTime(seAfter), StartedAt: FromMillis(seStarted.Int64),
			CompletedAt: optTime(seCompleted)}
		if seOut.Valid {
			last.Output = json.RawMessage(seOut.String)
		}
		if seErr.Valid {
			last.Error = &seErr.String
		}
		last.CreatedAt = last.StartedAt
		x.CurrentStep, x.LastStep = &ref, &last
	}
	return x, nil
}

const (
	engineExecutionsByIDsSQL = `SELECT ` + engineExecutionColumns + ` FROM workflow_executions e
		LEFT JOIN workflow_step_executions s ON s.rowid = (SELECT rowid FROM workflow_step_executions
			WHERE execution_id = e.id ORDER BY id DESC LIMIT 1)
		WHERE e.id IN (SELECT value FROM json_each(?))`
	engineExecutionsByIDsPG = `SELECT ` + engineExecutionColumns + ` FROM workflow_executions e
		LEFT JOIN workflow_step_executions s ON s.id = (SELECT id FROM workflow_step_executions
			WHERE execution_id = e.id ORDER BY id DESC LIMIT 1)
		WHERE e.id IN (SELECT json_array_elements_text(?::json))`
)

// EngineExecutionsByIDs reads executions by id with their latest step
// execution, in no particular order: the engine's read inside its write.
func EngineExecutionsByIDs(ctx context.Context, q Querier, ids []string) (_ []Execution, err error) {
	defer wrap(&err, "EngineExecutionsByIDs")
	rows, err := q.Query(ctx, engineExecutionsByIDsSQL, jsonArray(ids))
	return collect(rows, err, scanEngineExecution)
}

// ContactsByIDsAny reads contacts by id, whatever their project, in no
// order; the caller checks the project.
func ContactsByIDsAny(ctx context.Context, q Querier, ids []string) (_ []Contact, err error) {
	defer wrap(&err, "ContactsByIDsAny")
	rows, err := q.Query(ctx, `SELECT `+contactColumns+` FROM contacts WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	return collect(rows, err, scanContact)
}

// UpdateContactData writes a contact's data and updatedAt, and its
// subscription when withSubscription: the columns a workflow step
// changes. Leaving the email out of the SET spares its unique index.
func (tx *Tx) UpdateContactData(ctx context.Context, c Contact, withSubscription bool) (err error) {
	defer wrap(&err, "Tx.UpdateContactData")
	if withSubscription {
		_, err := tx.Exec(ctx, `UPDATE contacts SET subscribed = ?, data = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
			c.Subscribed, string(c.Data), Millis(c.UpdatedAt), c.ID, c.ProjectID)
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE contacts SET data = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
		string(c.Data), Millis(c.UpdatedAt), c.ID, c.ProjectID)
	return err
}

// UpdateContactData notes a contact's new data (and subscription, when
// withSubscription) to write as Tx.UpdateContactData does. The caller
// reads the batch's contacts from its own copy until the flush.
func (w *WorkflowWrites) UpdateContactData(_ context.Context, c Contact, withSubscription bool) (err error) {
	defer wrap(&err, "WorkflowWrites.UpdateContactData")
	if i, ok := w.contactAt[c.ID]; ok {
		w.contacts[i].c = c
		w.contacts[i].sub = w.contacts[i].sub || withSubscription
		return nil
	}
	w.contactAt[c.ID] = len(w.contacts)
	w.contacts = append(w.contacts, contactWrite{c: c, sub: withSubscription})
	return nil
}

// WorkflowWrites gathers the rows a batch of the engine writes; Flush
// writes them. A row saved twice is written once, as last saved. Nothing
// in the batch's write may read these rows between a save and the flush.
// Its methods match Tx's, so the engine writes through either.
type WorkflowWrites struct {
	steps     []StepExecution
	stepAt    map[string]int
	execs     []Execution
	execAt    map[string]int
	contacts  []contactWrite
	contactAt map[string]int
	events    []Event
	argsPool  []any
}

type contactWrite struct {
	c   Contact
	sub bool // its subscription changed too
}

// NewWorkflowWrites returns an empty set of writes.
func NewWorkflowWrites() *WorkflowWrites {
	return &WorkflowWrites{stepAt: map[string]int{}, execAt: map[string]int{}, contactAt: map[string]int{}}
}

// SaveStepExec notes a step execution to insert or rewrite.
func (w *WorkflowWrites) SaveStepExec(_ context.Context, x StepExecution) (err error) {
	defer wrap(&err, "WorkflowWrites.SaveStepExec")
	if i, ok := w.stepAt[x.ID]; ok {
		w.steps[i] = x
		return nil
	}
	w.stepAt[x.ID] = len(w.steps)
	w.steps = append(w.steps, x)
	return nil
}

// SaveExecution notes an execution's state to write.
func (w *WorkflowWrites) SaveExecution(_ context.Context, x Execution) (err error) {
	defer wrap(&err, "WorkflowWrites.SaveExecution")
	x.LastStep, x.CurrentStep = nil, nil
	if i, ok := w.execAt[x.ID]; ok {
		w.execs[i] = x
		return nil
	}
	w.execAt[x.ID] = len(w.execs)
	w.execs = append(w.execs, x)
	return nil
}

// InsertEventIfContact notes an event to store as Tx.InsertEventIfContact
// does.
func (w *WorkflowWrites) InsertEventIfContact(_ context.Context, e Event) (err error) {
	defer wrap(&err, "WorkflowWrites.InsertEventIfContact")
	w.events = append(w.events, e)
	return nil
}

// The multi-row UPDATEs read their rows from a VALUES list. PostgreSQL
// types a VALUES column from its first row, and would take the untyped
// arguments for text, so the first row's placeholders are cast there
// (fragments of the dialect, postgres_texts.go).
const (
	flushExecutionsHead = `UPDATE workflow_executions AS e SET status = v.column2, current_step_id = v.column3,
			context = v.column4, exit_reason = v.column5, due_at = v.column6, wait_event = v.column7, completed_at = v.column8
		FROM (VALUES `
	flushExecutionsRow   = `(?, ?, ?, ?, ?, ?, ?, ?)`
	flushExecutionsRowPG = `(?::text, ?::text, ?::text, ?::text, ?::text, ?::bigint, ?::text, ?::bigint)`
	flushContactDataHead = `UPDATE contacts AS c SET data = v.column3, updated_at = v.column4
		FROM (VALUES `
	flushContactDataRow          = `(?, ?, ?, ?)`
	flushContactDataRowPG        = `(?::text, ?::text, ?::text, ?::bigint)`
	flushContactSubscriptionHead = `UPDATE contacts AS c SET subscribed = v.column5, data = v.column3,
			updated_at = v.column4
		FROM (VALUES `
	flushContactSubscriptionRow   = `(?, ?, ?, ?, ?)`
	flushContactSubscriptionRowPG = `(?::text, ?::text, ?::text, ?::bigint, ?::boolean)`
	flushContactsTail             = `) AS v WHERE c.id = v.column1 AND c.project_id = v.column2`
)

// chunkSizes are the row counts of the multi-row statements: any count is
// written as a sum of these, so each statement is prepared once per
// connection whatever the batch's size.
var chunkSizes = [...]int{64, 16, 4, 1}

// chunkQueries is a multi-row statement's text for each of chunkSizes:
// head, then row repeated k times joined by commas, then tail.
type chunkQueries [len(chunkSizes)]string

func newChunkQueries(head, row, tail string) chunkQueries {
	var q chunkQueries
	for i, k := range chunkSizes {
		q[i] = head + strings.TrimSuffix(strings.Repeat(row+", ", k), ", ") + tail
	}
	return q
}

var (
	flushStepExecs = newChunkQueries(`INSERT INTO workflow_step_executions (`+stepExecColumns+`) VALUES `,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		` ON CONFLICT (id) DO UPDATE SET status = excluded.status, output = excluded.output, error = excluded.error,
			execute_after = excluded.execute_after, completed_at = excluded.completed_at`)
	flushExecutions          = newChunkQueries(flushExecutionsHead, flushExecutionsRow, `) AS v WHERE e.id = v.column1`)
	flushContactData         = newChunkQueries(flushContactDataHead, flushContactDataRow, flushContactsTail)
	flushContactSubscription = newChunkQueries(flushContactSubscriptionHead, flushContactSubscriptionRow, flushContactsTail)
	flushEvents              = newChunkQueries(`INSERT INTO events (id, project_id, contact_id, name, data, created_at) VALUES `,
		`(?, ?, (SELECT id FROM contacts WHERE id = ?), ?, ?, ?)`, ``)
)

// Flush writes the gathered rows: contacts, step executions, executions,
// then events, each in chunks, and empties w.
func (w *WorkflowWrites) Flush(ctx context.Context, tx *Tx) (err error) {
	defer wrap(&err, "WorkflowWrites.Flush")
	var data, subs []Contact
	for _, cw := range w.contacts {
		if cw.sub {
			subs = append(subs, cw.c)
		} else {
			data = append(data, cw.c)
		}
	}
	err = flushChunks(ctx, tx, w, len(data), &flushContactData, func(i int, args []any) []any {
		c := data[i]
		return append(args, c.ID, c.ProjectID, string(c.Data), Millis(c.UpdatedAt))
	})
	if err != nil {
		return err
	}
	err = flushChunks(ctx, tx, w, len(subs), &flushContactSubscription, func(i int, args []any) []any {
		c := subs[i]
		return append(args, c.ID, c.ProjectID, string(c.Data), Millis(c.UpdatedAt), c.Subscribed)
	})
	if err != nil {
		return err
	}
	err = flushChunks(ctx, tx, w, len(w.steps), &flushStepExecs, func(i int, args []any) []any {
		x := w.steps[i]
		return append(args, x.ID, x.ExecutionID, x.StepID, x.Step.Name, x.Step.Type, x.Status, nullJSON(x.Output), x.Error,
			optMillis(x.ExecuteAfter), Millis(x.StartedAt), optMillis(x.CompletedAt))
	})
	if err != nil {
		return err
	}
	err = flushChunks(ctx, tx, w, len(w.execs), &flushExecutions, func(i int, args []any) []any {
		x := w.execs[i]
		return append(args, x.ID, x.Status, x.CurrentStepID, string(x.Context), x.ExitReason, optMillis(x.DueAt),
			nullable(x.WaitEvent), optMillis(x.CompletedAt))
	})
	if err != nil {
		return err
	}
	err = flushChunks(ctx, tx, w, len(w.events), &flushEvents, func(i int, args []any) []any {
		e := w.events[i]
		return append(args, e.ID, e.ProjectID, e.ContactID, e.Name, string(e.Data), Millis(e.CreatedAt))
	})
	if err != nil {
		return err
	}
	*w = WorkflowWrites{stepAt: map[string]int{}, execAt: map[string]int{}, contactAt: map[string]int{}, argsPool: w.argsPool}
	return nil
}

// flushChunks writes rows 0..n-1 in statements of chunkSizes rows.
func flushChunks(ctx context.Context, tx *Tx, w *WorkflowWrites, n int, q *chunkQueries, row func(i int, args []any) []any) error {
	for i := 0; i < n; {
		c := len(chunkSizes) - 1
		for j, k := range chunkSizes {
			if n-i >= k {
				c = j
				break
			}
		}
		k := chunkSizes[c]
		args := w.argsPool[:0]
		for j := i; j < i+k; j++ {
			args = row(j, args)
		}
		w.argsPool = args
		if _, err := tx.Exec(ctx, q[c], args...); err != nil {
			return err
		}
		i += k
	}
	return nil
}
