package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/audience"
)

// listContacts serves GET /contacts.
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Audience.ListContacts(r.Context(), projectID(r), audience.ContactQuery{
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
	c, err := s.app.Audience.UpsertContact(r.Context(), projectID(r),
		audience.UpsertContactInput{Email: b.Email, Subscribed: b.Subscribed, Data: b.Data})
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
	return reply(w, http.StatusOK)(s.app.Audience.GetContact(r.Context(), projectID(r), param(r, "id")))
}

// updateContact serves PATCH /contacts/{id}.
func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) error {
	var b contactBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Audience.UpdateContact(r.Context(), projectID(r), param(r, "id"),
		audience.UpdateContactInput{Email: b.Email, Subscribed: b.Subscribed, Data: b.Data}))
}

// deleteContact serves DELETE /contacts/{id}.
func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Audience.DeleteContact(r.Context(), projectID(r), param(r, "id")); err != nil {
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
	return reply(w, http.StatusOK)(s.app.Audience.LookupContacts(r.Context(), projectID(r), b.Emails))
}

// contactFields serves GET /contacts/fields.
func (s *Server) contactFields(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.ContactFields(r.Context(), projectID(r)))
}

// contactFieldValues serves GET /contacts/fields/{field}/values.
func (s *Server) contactFieldValues(w http.ResponseWriter, r *http.Request) error {
	limit, _ := queryInt(r, "limit")
	return reply(w, http.StatusOK)(s.app.Audience.ContactFieldValues(r.Context(), projectID(r), param(r, "field"), limit))
}

// contactFieldUsage serves GET /contacts/fields/{field}/usage.
func (s *Server) contactFieldUsage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.ContactFieldUsage(r.Context(), projectID(r), param(r, "field")))
}

// deleteContactField serves DELETE /contacts/fields/{field}.
func (s *Server) deleteContactField(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.DeleteContactField(r.Context(), projectID(r), param(r, "field")))
}
