package web

import (
	"net/http"

	"github.com/heraldmail/herald/app"
)

// listContacts serves GET /contacts.
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.ListContacts(r.Context(), projectID(r), app.ContactQuery{
		Limit: limitParam(r), Cursor: q.Get("cursor"), Search: q.Get("search"),
		Subscribed: queryBool(r, "subscribed"), Sort: q.Get("sort"), Dir: q.Get("dir"),
	}))
}

type contactBody struct {
	Email      *string        `json:"email"`
	Subscribed *bool          `json:"subscribed"`
	Data       map[string]any `json:"data"`
}

// upsertContact serves POST /contacts: 201 when created, 200 when updated.
func (s *Server) upsertContact(w http.ResponseWriter, r *http.Request) error {
	var b contactBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	c, err := s.app.UpsertContact(r.Context(), projectID(r),
		app.UpsertContactInput{Email: b.Email, Subscribed: b.Subscribed, Data: b.Data})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if c.Meta.IsNew {
		status = http.StatusCreated
	}
	writeJSON(w, status, c)
	return nil
}

// getContact serves GET /contacts/{id}.
func (s *Server) getContact(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.GetContact(r.Context(), projectID(r), param(r, "id")))
}

// updateContact serves PATCH /contacts/{id}.
func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) error {
	var b contactBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.UpdateContact(r.Context(), projectID(r), param(r, "id"),
		app.UpdateContactInput{Email: b.Email, Subscribed: b.Subscribed, Data: b.Data}))
}

// deleteContact serves DELETE /contacts/{id}.
func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.DeleteContact(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// lookupContacts serves POST /contacts/lookup.
func (s *Server) lookupContacts(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Emails []string `json:"emails"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.LookupContacts(r.Context(), projectID(r), b.Emails))
}

// contactFields serves GET /contacts/fields.
func (s *Server) contactFields(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.ContactFields(r.Context(), projectID(r)))
}

// contactFieldValues serves GET /contacts/fields/{field}/values.
func (s *Server) contactFieldValues(w http.ResponseWriter, r *http.Request) error {
	limit, _ := queryInt(r, "limit")
	return reply(w, http.StatusOK)(s.app.ContactFieldValues(r.Context(), projectID(r), param(r, "field"), limit))
}

// contactFieldUsage serves GET /contacts/fields/{field}/usage.
func (s *Server) contactFieldUsage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.ContactFieldUsage(r.Context(), projectID(r), param(r, "field")))
}

// deleteContactField serves DELETE /contacts/fields/{field}.
func (s *Server) deleteContactField(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.DeleteContactField(r.Context(), projectID(r), param(r, "field")))
}
