package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/workflow"
)

type startBody struct {
	ContactID *string         `json:"contactId"`
	Context   json.RawMessage `json:"context"`
}

// startExecution serves POST /workflows/{id}/executions.
func (s *Server) startExecution(w http.ResponseWriter, r *http.Request) error {
	var b startBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Workflows.StartExecution(r.Context(), projectID(r), param(r, "id"),
		workflow.StartInput{ContactID: b.ContactID, Context: b.Context}))
}

// listExecutions serves GET /workflows/{id}/executions (?status, cursor list).
func (s *Server) listExecutions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Workflows.ListExecutions(r.Context(), projectID(r), param(r, "id"),
		workflow.ExecutionQuery{Limit: limitParam(r), Cursor: q.Get("cursor"), Status: q.Get("status")}))
}

// getExecution serves GET /workflows/{id}/executions/{executionId}.
func (s *Server) getExecution(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Workflows.GetExecution(r.Context(), projectID(r), param(r, "id"), param(r, "executionId")))
}

// cancelExecution serves DELETE /workflows/{id}/executions/{executionId}.
func (s *Server) cancelExecution(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Workflows.CancelExecution(r.Context(), projectID(r), param(r, "id"), param(r, "executionId")))
}

// cancelAllExecutions serves POST /workflows/{id}/executions/cancel-all.
func (s *Server) cancelAllExecutions(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Workflows.CancelAllExecutions(r.Context(), projectID(r), param(r, "id")))
}
