package workflow

import (
	"encoding/json"
	"time"

	"github.com/heraldmail/herald/storage"
)

// The workflow API's answers. Storage rows carry no JSON: these are what
// a client sees, made from the rows at the edge of each method.

// Workflow is an automation: a trigger and a graph of steps.
type Workflow struct {
	ID            string          `json:"id"`
	ProjectID     string          `json:"projectId"`
	Name          string          `json:"name"`
	Description   *string         `json:"description"`
	Enabled       bool            `json:"enabled"`
	AllowReentry  bool            `json:"allowReentry"`
	TriggerType   string          `json:"triggerType"`
	TriggerConfig json.RawMessage `json:"triggerConfig"`
	EventName     string          `json:"-"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

func workflowView(w storage.Workflow) Workflow { return Workflow(w) }

// Step is one node of a workflow's graph.
type Step struct {
	ID         string          `json:"id"`
	WorkflowID string          `json:"workflowId"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Position   json.RawMessage `json:"position"`
	Config     json.RawMessage `json:"config"`
	TemplateID *string         `json:"templateId"`
	CreatedAt  time.Time       `json:"createdAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`

	// Steps and transitions share one shape (contracts/workflows.md): a
	// step's edge fields are always null.
	Condition   any     `json:"condition"`
	Branch      *string `json:"branch"`
	WaitOutcome *string `json:"waitOutcome"`
}

func stepView(s storage.WorkflowStep) Step { return Step(s) }

// Transition is an edge of a workflow's graph.
type Transition struct {
	ID          string    `json:"id"`
	WorkflowID  string    `json:"workflowId"`
	FromStepID  string    `json:"fromStepId"`
	ToStepID    string    `json:"toStepId"`
	Condition   any       `json:"condition"` // {branch} or null
	Branch      *string   `json:"branch"`
	WaitOutcome *string   `json:"waitOutcome"`
	Priority    int       `json:"priority"`
	TemplateID  *string   `json:"templateId"` // always null: the shape steps share
	CreatedAt   time.Time `json:"createdAt"`
}

func transitionView(t storage.WorkflowTransition) Transition { return Transition(t) }

// StepRef names a step as executions show it.
type StepRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// ContactRef is {id, email}.
type ContactRef struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// Execution is one contact's run through a workflow.
type Execution struct {
	ID            string          `json:"id"`
	WorkflowID    string          `json:"workflowId"`
	ContactID     string          `json:"contactId"`
	Contact       ContactRef      `json:"contact"`
	Status        string          `json:"status"`
	CurrentStepID *string         `json:"currentStepId"`
	CurrentStep   *StepRef        `json:"currentStep"`
	Context       json.RawMessage `json:"context"`
	ExitReason    *string         `json:"exitReason"`
	SourceEventID *string         `json:"sourceEventId"`
	StartedAt     time.Time       `json:"startedAt"`
	CompletedAt   *time.Time      `json:"completedAt"`
	CreatedAt     time.Time       `json:"createdAt"`
}

func executionView(x storage.Execution) Execution {
	v := Execution{ID: x.ID, WorkflowID: x.WorkflowID, ContactID: x.ContactID, Contact: ContactRef(x.Contact),
		Status: x.Status, CurrentStepID: x.CurrentStepID, Context: x.Context, ExitReason: x.ExitReason,
		SourceEventID: x.SourceEventID, StartedAt: x.StartedAt, CompletedAt: x.CompletedAt, CreatedAt: x.CreatedAt}
	if x.CurrentStep != nil {
		ref := StepRef(*x.CurrentStep)
		v.CurrentStep = &ref
	}
	return v
}

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

func stepExecutionView(x storage.StepExecution) StepExecution {
	return StepExecution{ID: x.ID, ExecutionID: x.ExecutionID, StepID: x.StepID, Step: StepRef(x.Step), Status: x.Status,
		Output: x.Output, Error: x.Error, ExecuteAfter: x.ExecuteAfter, StartedAt: x.StartedAt,
		CompletedAt: x.CompletedAt, CreatedAt: x.CreatedAt}
}
