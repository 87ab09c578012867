package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"
)

// seedExecutions makes a project, a workflow and n contacts each with one
// WAITING execution whose DELAY step execution is SCHEDULED.
func seedExecutions(t *testing.T, db *DB, n int) ([]Execution, []StepExecution, []Contact) {
	t.Helper()
	ctx := context.Background()
	now := time.UnixMilli(1_700_000_000_000).UTC()
	var xs []Execution
	var ses []StepExecution
	var cs []Contact
	err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.InsertProject(ctx, Project{ID: "p", Name: "p", Public: "pk", Secret: "sk", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		if err := tx.InsertWorkflow(ctx, Workflow{ID: "w", ProjectID: "p", Name: "W", TriggerType: "EVENT",
			TriggerConfig: json.RawMessage(`{"eventName":"e"}`), EventName: "e", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		xs, ses, cs = nil, nil, nil
		for i := range n {
			c := Contact{ID: fmt.Sprintf("c%04d", i), ProjectID: "p", Email: fmt.Sprintf("u%d@example.com", i), Subscribed: true,
				Data: json.RawMessage(`{}`), CreatedAt: now, UpdatedAt: now}
			if err := tx.InsertContact(ctx, c); err != nil {
				return err
			}
			due, step := now.Add(time.Hour), "s-delay"
			x := Execution{ID: fmt.Sprintf("x%04d", i), ProjectID: "p", WorkflowID: "w", ContactID: c.ID,
				Contact: ContactRef{ID: c.ID, Email: c.Email}, Status: ExecWaiting, CurrentStepID: &step,
				Context: json.RawMessage(`{"i":1}`), DueAt: &due, StartedAt: now, CreatedAt: now}
			if _, err := tx.InsertExecution(ctx, x); err != nil {
				return err
			}
			se := StepExecution{ID: fmt.Sprintf("se%04d-1", i), ExecutionID: x.ID, StepID: step,
				Step: StepRef{ID: step, Name: "Wait", Type: "DELAY"}, Status: StepScheduled,
				Output: json.RawMessage(`{"delayAmount":1}`), ExecuteAfter: &due, StartedAt: now}
			if err := tx.SaveStepExec(ctx, se); err != nil {
				return err
			}
			xs, ses, cs = append(xs, x), append(ses, se), append(cs, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return xs, ses, cs
}

// TestWorkflowWritesMatchSingleStatements moves executions twice, once
// through Tx's one-row statements and once through WorkflowWrites (counts
// that need every chunk size, rows saved twice), and expects the same rows.
func TestWorkflowWritesMatchSingleStatements(t *testing.T) {
	for _, n := range []int{1, 3, 85} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			single, batched := openTest(t), openTest(t)
			move := func(db *DB, w stepRowWriter, flush func(*Tx) error) {
				xs, ses, cs := seedExecutions(t, db, n)
				ctx := context.Background()
				later := time.UnixMilli(1_700_003_600_000).UTC()
				err := db.Write(ctx, func(tx *Tx) error {
					for i := range xs {
						x, se, c := xs[i], ses[i], cs[i]
						se.Status, se.CompletedAt = StepCompleted, &later
						if err := w(tx).SaveStepExec(ctx, se); err != nil {
							return err
						}
						x.Status, x.DueAt, x.CurrentStepID = ExecRunning, nil, &se.StepID
						if err := w(tx).SaveExecution(ctx, x); err != nil { // saved twice: the last one counts
							return err
						}
						next := StepExecution{ID: fmt.Sprintf("se%04d-2", i), ExecutionID: x.ID, StepID: "s-update",
							Step: StepRef{ID: "s-update", Name: "Tag", Type: "UPDATE_CONTACT"}, Status: StepCompleted,
							Output: json.RawMessage(`{"updated":true}`), StartedAt: later, CompletedAt: &later}
						if err := w(tx).SaveStepExec(ctx, next); err != nil {
							return err
						}
						c.Data, c.UpdatedAt = json.RawMessage(fmt.Sprintf(`{"n":%d,"tag":"x"}`, i)), later
						c.Subscribed = i%2 == 0
						if err := w(tx).UpdateContactData(ctx, c, i%2 == 1); err != nil {
							return err
						}
						reason := "done"
						x.Status, x.CompletedAt, x.ExitReason = ExecCompleted, &later, &reason
						if err := w(tx).SaveExecution(ctx, x); err != nil {
							return err
						}
						for k := range 2 { // two of a name on one contact: the stored counts count it once
							if err := w(tx).InsertEventIfContact(ctx, Event{ID: fmt.Sprintf("ev%04d-%d", i, k), ProjectID: "p", ContactID: c.ID,
								Name: "workflow.completed", Data: json.RawMessage(`{"workflowId":"w"}`), CreatedAt: later}); err != nil {
								return err
							}
						}
					}
					return flush(tx)
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			move(single, func(tx *Tx) rowWriter { return tx }, func(*Tx) error { return nil })
			ww := NewWorkflowWrites()
			move(batched, func(*Tx) rowWriter { return ww }, func(tx *Tx) error { return ww.Flush(context.Background(), tx) })
			values, counts := `SELECT project_id, key, value, contact_id FROM contact_values ORDER BY contact_id, key`,
				`SELECT project_id, kind, key, value, n FROM audience_counts ORDER BY project_id, kind, key, value`
			if single.pg != nil { // typed values, sharded counters (migrations/postgres)
				values = `SELECT project_id, key, vtype, fold, contact_id FROM contact_values ORDER BY contact_id, key, vtype, fold`
				counts = `SELECT project_id, kind, key, vtype, fold, sum(n) FROM audience_counts
					GROUP BY project_id, kind, key, vtype, fold HAVING sum(n) <> 0 ORDER BY project_id, kind, key, vtype, fold`
			}
			for _, q := range []string{
				`SELECT ` + stepExecColumns + ` FROM workflow_step_executions ORDER BY id`,
				`SELECT id, status, current_step_id, context, exit_reason, due_at, wait_event, completed_at FROM workflow_executions ORDER BY id`,
				`SELECT ` + contactColumns + ` FROM contacts ORDER BY id`,
				values,
				`SELECT id, project_id, contact_id, name, data, created_at FROM events ORDER BY id`,
				counts,
			} {
				a, b := dump(t, single, q), dump(t, batched, q)
				if len(a) == 0 || !reflect.DeepEqual(a, b) {
					t.Errorf("%s:\none by one %v\nbatched    %v", q, a, b)
				}
			}
		})
	}
}

// rowWriter is what the engine writes through: Tx or WorkflowWrites.
type rowWriter interface {
	SaveStepExec(ctx context.Context, x StepExecution) error
	SaveExecution(ctx context.Context, x Execution) error
	UpdateContactData(ctx context.Context, c Contact, withSubscription bool) error
	InsertEventIfContact(ctx context.Context, e Event) error
}

type stepRowWriter = func(*Tx) rowWriter

func dump(t *testing.T, db *DB, q string) [][]any {
	t.Helper()
	rows, err := db.Reader().Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	return out
}

// The engine's read gives the latest step execution as the API's does.
func TestEngineExecutionsByIDsMatchesExecutionsByIDs(t *testing.T) {
	db := openTest(t)
	xs, _, _ := seedExecutions(t, db, 3)
	ids := []string{xs[0].ID, xs[2].ID, "missing"}
	a, err := ExecutionsByIDs(context.Background(), db.Reader(), ids)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EngineExecutionsByIDs(context.Background(), db.Reader(), ids)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(xs []Execution) { sort.Slice(xs, func(i, j int) bool { return xs[i].ID < xs[j].ID }) }
	byID(a)
	byID(b)
	if len(a) != 2 || !reflect.DeepEqual(a, b) {
		t.Fatalf("json read %+v\nengine read %+v", a, b)
	}
}
