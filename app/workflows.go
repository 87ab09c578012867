package app

import (
	"context"

	"github.com/heraldmail/herald/app/workflow"
)

// Workflows live in app/workflow: the API's graph editing and checks as
// well as the engine. These are the names web reads and the thin methods
// it calls; each hands its call to the Engine.

// Workflow trigger types and step types.
const (
	TriggerEvent  = workflow.TriggerEvent
	TriggerManual = workflow.TriggerManual

	StepTrigger       = workflow.StepTrigger
	StepSendEmail     = workflow.StepSendEmail
	StepDelay         = workflow.StepDelay
	StepWaitForEvent  = workflow.StepWaitForEvent
	StepCondition     = workflow.StepCondition
	StepWebhook       = workflow.StepWebhook
	StepUpdateContact = workflow.StepUpdateContact
	StepExit          = workflow.StepExit
)

// The types of the workflow API's requests and answers.
type (
	Workflow        = workflow.Workflow
	WorkflowDetail  = workflow.WorkflowDetail
	WorkflowInput   = workflow.WorkflowInput
	WorkflowQuery   = workflow.WorkflowQuery
	Step            = workflow.Step
	StepInput       = workflow.StepInput
	Transition      = workflow.Transition
	TransitionInput = workflow.TransitionInput
	Execution       = workflow.Execution
	ExecutionDetail = workflow.ExecutionDetail
	ExecutionQuery  = workflow.ExecutionQuery
	StartInput      = workflow.StartInput
)

func (a *App) CreateWorkflow(ctx context.Context, projectID string, in WorkflowInput) (WorkflowDetail, error) {
	return a.workflows.CreateWorkflow(ctx, projectID, in)
}

func (a *App) ListWorkflows(ctx context.Context, projectID string, q WorkflowQuery) (Page[Workflow], error) {
	return a.workflows.ListWorkflows(ctx, projectID, q)
}

func (a *App) GetWorkflow(ctx context.Context, projectID, id string) (WorkflowDetail, error) {
	return a.workflows.GetWorkflow(ctx, projectID, id)
}

func (a *App) UpdateWorkflow(ctx context.Context, projectID, id string, in WorkflowInput) (WorkflowDetail, error) {
	return a.workflows.UpdateWorkflow(ctx, projectID, id, in)
}

func (a *App) DeleteWorkflow(ctx context.Context, projectID, id string) error {
	return a.workflows.DeleteWorkflow(ctx, projectID, id)
}

func (a *App) AddStep(ctx context.Context, projectID, workflowID string, in StepInput) (Step, error) {
	return a.workflows.AddStep(ctx, projectID, workflowID, in)
}

func (a *App) UpdateStep(ctx context.Context, projectID, workflowID, stepID string, in StepInput) (Step, error) {
	return a.workflows.UpdateStep(ctx, projectID, workflowID, stepID, in)
}

func (a *App) DeleteStep(ctx context.Context, projectID, workflowID, stepID string, splice bool) error {
	return a.workflows.DeleteStep(ctx, projectID, workflowID, stepID, splice)
}

func (a *App) AddTransition(ctx context.Context, projectID, workflowID string, in TransitionInput) (Transition, error) {
	return a.workflows.AddTransition(ctx, projectID, workflowID, in)
}

func (a *App) DeleteTransition(ctx context.Context, projectID, workflowID, id string) error {
	return a.workflows.DeleteTransition(ctx, projectID, workflowID, id)
}

func (a *App) StartExecution(ctx context.Context, projectID, workflowID string, in StartInput) (Execution, error) {
	return a.workflows.StartExecution(ctx, projectID, workflowID, in)
}

func (a *App) ListExecutions(ctx context.Context, projectID, workflowID string, q ExecutionQuery) (Page[Execution], error) {
	return a.workflows.ListExecutions(ctx, projectID, workflowID, q)
}

func (a *App) GetExecution(ctx context.Context, projectID, workflowID, id string) (ExecutionDetail, error) {
	return a.workflows.GetExecution(ctx, projectID, workflowID, id)
}

func (a *App) CancelExecution(ctx context.Context, projectID, workflowID, id string) (Execution, error) {
	return a.workflows.CancelExecution(ctx, projectID, workflowID, id)
}

func (a *App) CancelAllExecutions(ctx context.Context, projectID, workflowID string) (map[string]int, error) {
	return a.workflows.CancelAllExecutions(ctx, projectID, workflowID)
}

// OperatorWorkflows, OperatorWorkflow and OperatorExecutions are the
// operator's reads across projects.
func (a *App) OperatorWorkflows(ctx context.Context, projectID string) ([]Workflow, error) {
	return a.workflows.OperatorWorkflows(ctx, projectID)
}

func (a *App) OperatorWorkflow(ctx context.Context, id string) (WorkflowDetail, error) {
	return a.workflows.OperatorWorkflow(ctx, id)
}

func (a *App) OperatorExecutions(ctx context.Context, id string, q ExecutionQuery) (Page[Execution], error) {
	return a.workflows.OperatorExecutions(ctx, id, q)
}
