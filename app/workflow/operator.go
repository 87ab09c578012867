package workflow

import (
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"

	"context"

	"github.com/heraldmail/herald/storage"
)

// These serve `herald workflow`, the operator's view without the API: it
// names workflows by id alone, across projects.

// OperatorWorkflows lists the workflows of one project ("" for all).
func (en *Service) OperatorWorkflows(ctx context.Context, projectID string) (_ []Workflow, err error) {
	defer apierr.Wrap(&err, "workflow.OperatorWorkflows")
	all, err := storage.AllWorkflows(ctx, en.db.Reader())
	out := []Workflow{}
	for _, w := range all {
		if projectID == "" || w.ProjectID == projectID {
			out = append(out, Workflow(w))
		}
	}
	return out, err
}

// OperatorWorkflow finds a workflow by id in any project, with its graph.
func (en *Service) OperatorWorkflow(ctx context.Context, id string) (_ WorkflowDetail, err error) {
	defer apierr.Wrap(&err, "workflow.OperatorWorkflow")
	w, err := storage.WorkflowByIDAnyProject(ctx, en.db.Reader(), id)
	if err != nil {
		return WorkflowDetail{}, workflowErr(err)
	}
	return en.GetWorkflow(ctx, w.ProjectID, id)
}

// OperatorExecutions lists a workflow's executions, newest first.
func (en *Service) OperatorExecutions(ctx context.Context, id string, q ExecutionQuery) (_ paging.Page[Execution], err error) {
	defer apierr.Wrap(&err, "workflow.OperatorExecutions")
	w, err := storage.WorkflowByIDAnyProject(ctx, en.db.Reader(), id)
	if err != nil {
		return paging.Page[Execution]{}, workflowErr(err)
	}
	return en.ListExecutions(ctx, w.ProjectID, id, q)
}
