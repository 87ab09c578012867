package app

import (
	"context"

	"github.com/heraldmail/herald/storage"
)

// These serve `herald workflow`, the operator's view without the API: it
// names workflows by id alone, across projects.

// OperatorWorkflows lists the workflows of one project ("" for all).
func (a *App) OperatorWorkflows(ctx context.Context, projectID string) ([]Workflow, error) {
	all, err := storage.AllWorkflows(ctx, a.db.Reader())
	out := []Workflow{}
	for _, w := range all {
		if projectID == "" || w.ProjectID == projectID {
			out = append(out, w)
		}
	}
	return out, err
}

// OperatorWorkflow finds a workflow by id in any project, with its graph.
func (a *App) OperatorWorkflow(ctx context.Context, id string) (WorkflowDetail, error) {
	w, err := storage.WorkflowByIDAnyProject(ctx, a.db.Reader(), id)
	if err != nil {
		return WorkflowDetail{}, workflowErr(err)
	}
	return a.GetWorkflow(ctx, w.ProjectID, id)
}

// OperatorExecutions lists a workflow's executions, newest first.
func (a *App) OperatorExecutions(ctx context.Context, id string, q ExecutionQuery) (Page[Execution], error) {
	w, err := storage.WorkflowByIDAnyProject(ctx, a.db.Reader(), id)
	if err != nil {
		return Page[Execution]{}, workflowErr(err)
	}
	return a.ListExecutions(ctx, w.ProjectID, id, q)
}
