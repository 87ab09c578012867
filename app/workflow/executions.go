package workflow

import (
	"github.com/heraldmail/herald/app/paging"

	"github.com/heraldmail/herald/app/apierr"

	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldmail/herald/storage"
)

// Execution is a contact's run through a workflow.
type Execution = storage.Execution

// ExecutionDetail adds the step executions, in run order.
type ExecutionDetail struct {
	storage.Execution
	StepExecutions []storage.StepExecution `json:"stepExecutions"`
}

// StartInput is the body of POST …/executions.
type StartInput struct {
	ContactID *string
	Context   json.RawMessage
}

// executionStatuses are the statuses GET …/executions filters by.
var executionStatuses = map[string]bool{storage.ExecRunning: true, storage.ExecWaiting: true, storage.ExecCompleted: true,
	storage.ExecExited: true, storage.ExecFailed: true, storage.ExecCancelled: true}

func executionNotFound() error { return apierr.NotFound("NOT_FOUND", "Execution not found") }

// StartExecution starts a workflow for a contact by hand. The execution
// is RUNNING and runs after the answer.
func (en *Service) StartExecution(ctx context.Context, projectID, workflowID string, in StartInput) (Execution, error) {
	var v apierr.Validation
	if in.ContactID == nil || *in.ContactID == "" {
		v.Add("contactId", "invalid_type", "Required", "undefined")
	}
	execCtx := json.RawMessage(`{}`)
	if len(in.Context) > 0 && string(in.Context) != "null" {
		if t := bytes.TrimSpace(in.Context); len(t) == 0 || t[0] != '{' {
			v.Add("context", "invalid_type", "Context must be an object", string(in.Context))
		} else {
			execCtx = t
		}
	}
	var x Execution
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		w, err := storage.WorkflowByID(ctx, tx, projectID, workflowID)
		if err != nil {
			return workflowErr(err)
		}
		if err := v.Err(); err != nil {
			return err
		}
		c, err := storage.ContactByID(ctx, tx, projectID, *in.ContactID)
		if err != nil {
			return contactErr(err)
		}
		if !w.Enabled {
			return apierr.Conflict("The workflow is disabled: enable it to start executions")
		}
		if blocked, err := ReentryBlocked(ctx, tx, w, c.ID); err != nil || blocked {
			if err == nil {
				err = apierr.Conflict("The contact is already in this workflow and re-entry is not allowed")
			}
			return err
		}
		x, err = en.startByHand(ctx, tx, w, c, execCtx) // it runs after the answer
		return err
	})
	return x, err
}

// ExecutionQuery is GET …/executions's query.
type ExecutionQuery struct {
	Limit  int
	Cursor string
	Status string
}

// ListExecutions returns one page of a workflow's executions, newest first.
func (en *Service) ListExecutions(ctx context.Context, projectID, workflowID string, q ExecutionQuery) (paging.Page[Execution], error) {
	r := en.db.Reader()
	if _, err := storage.WorkflowByID(ctx, r, projectID, workflowID); err != nil {
		return paging.Page[Execution]{}, workflowErr(err)
	}
	if q.Status != "" && !executionStatuses[q.Status] {
		return paging.Page[Execution]{}, apierr.BadRequest("Unknown status %q: use RUNNING, WAITING, COMPLETED, EXITED, FAILED or CANCELLED", q.Status)
	}
	q.Limit = paging.ClampLimit(q.Limit, q.Limit != 0) // a caller without a limit gets the default
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Execution]{}, err
	}
	afterID := ""
	if after != nil {
		afterID = after.ID
	}
	rows, err := storage.ListExecutions(ctx, r, workflowID, q.Status, afterID, q.Limit+1)
	if err != nil {
		return paging.Page[Execution]{}, err
	}
	page := paging.Paginate(rows, q.Limit, func(x Execution) storage.Cursor { return storage.Cursor{Sort: "id", Desc: true, ID: x.ID} })
	if after == nil {
		page.Total, err = storage.CountExecutions(ctx, r, workflowID, q.Status)
	}
	return page, err
}

// GetExecution returns an execution with its step executions.
func (en *Service) GetExecution(ctx context.Context, projectID, workflowID, id string) (ExecutionDetail, error) {
	r := en.db.Reader()
	if _, err := storage.WorkflowByID(ctx, r, projectID, workflowID); err != nil {
		return ExecutionDetail{}, workflowErr(err)
	}
	x, err := storage.ExecutionByID(ctx, r, workflowID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return ExecutionDetail{}, executionNotFound()
	}
	if err != nil {
		return ExecutionDetail{}, err
	}
	d := ExecutionDetail{Execution: x}
	d.StepExecutions, err = storage.StepExecs(ctx, r, id)
	if d.StepExecutions == nil {
		d.StepExecutions = []storage.StepExecution{}
	}
	return d, err
}

// CancelExecution cancels an active execution.
func (en *Service) CancelExecution(ctx context.Context, projectID, workflowID, id string) (Execution, error) {
	var x Execution
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		w, err := storage.WorkflowByID(ctx, tx, projectID, workflowID)
		if err != nil {
			return workflowErr(err)
		}
		x, err = storage.ExecutionByID(ctx, tx, workflowID, id)
		if errors.Is(err, storage.ErrNotFound) {
			return executionNotFound()
		}
		if err != nil {
			return err
		}
		if !x.Active() {
			return apierr.Conflict("The execution is %s: only a RUNNING or WAITING execution can be cancelled", x.Status)
		}
		if err := en.cancel(ctx, tx, w, &x); err != nil {
			return err
		}
		x, err = storage.ExecutionByID(ctx, tx, workflowID, id)
		return err
	})
	return x, err
}

// CancelAllExecutions cancels every active execution of a workflow.
func (en *Service) CancelAllExecutions(ctx context.Context, projectID, workflowID string) (map[string]int, error) {
	if _, err := storage.WorkflowByID(ctx, en.db.Reader(), projectID, workflowID); err != nil {
		return nil, workflowErr(err)
	}
	total := 0
	for {
		n := 0
		err := en.db.Write(ctx, func(tx *storage.Tx) error {
			n = 0
			w, err := storage.WorkflowByID(ctx, tx, projectID, workflowID)
			if err != nil {
				return workflowErr(err)
			}
			xs, err := storage.ActiveExecutions(ctx, tx, workflowID, 500)
			if err != nil {
				return err
			}
			for i := range xs {
				if err := en.cancel(ctx, tx, w, &xs[i]); err != nil {
					return err
				}
			}
			n = len(xs)
			return nil
		})
		if err != nil {
			return nil, err
		}
		total += n
		if n < 500 {
			return map[string]int{"cancelled": total}, nil
		}
	}
}
