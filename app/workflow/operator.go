package workflow

import (
	"github.com/heraldmail/herald/app/paging"

	"context"

	"github.com/heraldmail/herald/storage"
)

// These serve `herald workflow`, the operator's view without the API: it
// names workflows by id alone, across projects.

// OperatorWorkflows lists the workflows of one project ("" for all).
func (en *Service) OperatorWorkflows(ctx context.Context, projectID string) ([]Workflow, error) {
	all, err := storage.AllWorkflows(ctx, en.db.Reader())
	out := []Workflow{}
	for _, w := range all {
		if projectID == "" || w.ProjectID == projectID {
			out = append(out, w)
		}
	}
	return out, err
}

// OperatorWorkflow finds a workflow by id in any project, with its graph.
func (en *Service) OperatorWorkflow(ctx context.Context, id string) (WorkflowDetail, error) {
	w, err := storage.WorkflowByIDAnyProject(ctx, en.db.Reader(), id)
	if err != nil {
		return WorkflowDetail{}, workflowErr(err)
	}
	return en.GetWorkflow(ctx, w.ProjectID, id)
}

// OperatorExecutions lists a workflow's executions, newest first.
func (en *Service) OperatorExecutions(ctx context.Context, id string, q ExecutionQuery) (paging.Page[Execution], error) {
	w, err := storage.WorkflowByIDAnyProject(ctx, en.db.Reader(), id)
	if err != nil {
		return paging.Page[Execution]{}, workflowErr(err)
	}
	return en.ListExecutions(ctx, w.ProjectID, id, q)
}
