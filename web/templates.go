package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/messaging"
)

// templateBody is the body of POST and PATCH /templates.
type templateBody struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Subject     *string `json:"subject"`
	Body        *string `json:"body"`
	From        *string `json:"from"`
	FromName    *string `json:"fromName"`
	ReplyTo     *string `json:"replyTo"`
	Type        *string `json:"type"`
}

func (b templateBody) input() messaging.TemplateInput {
	return messaging.TemplateInput{Name: b.Name, Description: b.Description, Subject: b.Subject, Body: b.Body,
		From: b.From, FromName: b.FromName, ReplyTo: b.ReplyTo, Type: b.Type}
}

// listTemplates serves GET /templates.
func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Messaging.ListTemplates(r.Context(), projectID(r), messaging.TemplateQuery{
		Limit: limitParam(r), Cursor: q.Get("cursor"), Search: q.Get("search"), Type: q.Get("type"),
	}))
}

// createTemplate serves POST /templates.
func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) error {
	var b templateBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Messaging.CreateTemplate(r.Context(), projectID(r), b.input()))
}

// getTemplate serves GET /templates/{id}.
func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Messaging.GetTemplate(r.Context(), projectID(r), param(r, "id")))
}

// updateTemplate serves PATCH /templates/{id}.
func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) error {
	var b templateBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Messaging.UpdateTemplate(r.Context(), projectID(r), param(r, "id"), b.input()))
}

// deleteTemplate serves DELETE /templates/{id}.
func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Messaging.DeleteTemplate(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// duplicateTemplate serves POST /templates/{id}/duplicate: 201 with the copy.
func (s *Server) duplicateTemplate(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusCreated)(s.app.Messaging.DuplicateTemplate(r.Context(), projectID(r), param(r, "id")))
}

// templateUsage serves GET /templates/{id}/usage.
func (s *Server) templateUsage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Messaging.GetTemplateUsage(r.Context(), projectID(r), param(r, "id")))
}
