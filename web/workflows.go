package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/workflow"
)

// workflowBody is the body of POST and PATCH /workflows.
type workflowBody struct {
	Name          *string         `json:"name"`
	Description   *string         `json:"description"`
	EventName     *string         `json:"eventName"`
	Enabled       *bool           `json:"enabled"`
	AllowReentry  *bool           `json:"allowReentry"`
	TriggerType   *string         `json:"triggerType"`
	TriggerConfig json.RawMessage `json:"triggerConfig"`
}

func (b workflowBody) input() workflow.WorkflowInput {
	return workflow.WorkflowInput{Name: b.Name, Description: b.Description, EventName: b.EventName, Enabled: b.Enabled,
		AllowReentry: b.AllowReentry, TriggerType: b.TriggerType, TriggerConfig: b.TriggerConfig}
}

// listWorkflows serves GET /workflows (?search, ?enabled, cursor list).
func (s *Server) listWorkflows(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Workflows.ListWorkflows(r.Context(), projectID(r), workflow.WorkflowQuery{Limit: limitParam(r),
		Cursor: q.Get("cursor"), Search: q.Get("search"), Enabled: queryBool(r, "enabled")}))
}

// createWorkflow serves POST /workflows.
func (s *Server) createWorkflow(w http.ResponseWriter, r *http.Request) error {
	var b workflowBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Workflows.CreateWorkflow(r.Context(), projectID(r), b.input()))
}

// getWorkflow serves GET /workflows/{id}.
func (s *Server) getWorkflow(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Workflows.GetWorkflow(r.Context(), projectID(r), param(r, "id")))
}

// updateWorkflow serves PATCH /workflows/{id}.
func (s *Server) updateWorkflow(w http.ResponseWriter, r *http.Request) error {
	var b workflowBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Workflows.UpdateWorkflow(r.Context(), projectID(r), param(r, "id"), b.input()))
}

// deleteWorkflow serves DELETE /workflows/{id}.
func (s *Server) deleteWorkflow(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Workflows.DeleteWorkflow(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// workflowFields serves GET /workflows/fields?eventName=.
func (s *Server) workflowFields(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Workflows.GetWorkflowFields(r.Context(), projectID(r), r.URL.Query().Get("eventName")))
}
