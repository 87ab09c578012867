package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/workflow"
)

// stepBody is the body of POST and PATCH …/steps.
type stepBody struct {
	Type        *string         `json:"type"`
	Name        *string         `json:"name"`
	Position    json.RawMessage `json:"position"`
	Config      json.RawMessage `json:"config"`
	TemplateID  *string         `json:"templateId"`
	AutoConnect *bool           `json:"autoConnect"`
}

func (b stepBody) input() workflow.StepInput {
	return workflow.StepInput{Type: b.Type, Name: b.Name, Position: b.Position, Config: b.Config,
		TemplateID: b.TemplateID, AutoConnect: b.AutoConnect}
}

// addStep serves POST /workflows/{id}/steps.
func (s *Server) addStep(w http.ResponseWriter, r *http.Request) error {
	var b stepBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Workflows.AddStep(r.Context(), projectID(r), param(r, "id"), b.input()))
}

// updateStep serves PATCH /workflows/{id}/steps/{stepId}.
func (s *Server) updateStep(w http.ResponseWriter, r *http.Request) error {
	var b stepBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Workflows.UpdateStep(r.Context(), projectID(r), param(r, "id"), param(r, "stepId"), b.input()))
}

// deleteStep serves DELETE /workflows/{id}/steps/{stepId}?splice=true.
func (s *Server) deleteStep(w http.ResponseWriter, r *http.Request) error {
	splice := queryBool(r, "splice")
	if err := s.app.Workflows.DeleteStep(r.Context(), projectID(r), param(r, "id"), param(r, "stepId"), splice != nil && *splice); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// transitionBody is the body of POST …/transitions.
type transitionBody struct {
	FromStepID  *string         `json:"fromStepId"`
	ToStepID    *string         `json:"toStepId"`
	Condition   json.RawMessage `json:"condition"`
	Branch      *string         `json:"branch"`
	WaitOutcome *string         `json:"waitOutcome"`
	Priority    *int            `json:"priority"`
}

// addTransition serves POST /workflows/{id}/transitions.
func (s *Server) addTransition(w http.ResponseWriter, r *http.Request) error {
	var b transitionBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Workflows.AddTransition(r.Context(), projectID(r), param(r, "id"), workflow.TransitionInput{
		FromStepID: b.FromStepID, ToStepID: b.ToStepID, Condition: b.Condition, Branch: b.Branch,
		WaitOutcome: b.WaitOutcome, Priority: b.Priority}))
}

// deleteTransition serves DELETE /workflows/{id}/transitions/{transitionId}.
func (s *Server) deleteTransition(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Workflows.DeleteTransition(r.Context(), projectID(r), param(r, "id"), param(r, "transitionId")); err != nil {
		return err
	}
	noContent(w)
	return nil
}
