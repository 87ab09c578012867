package web

import (
	"net/http"

	"github.com/heraldmail/herald/app"
)

// listContacts serves GET /contacts.
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := s.app.ListContacts(r.Context(), projectID(r), app.ContactQuery{
		Limit: limitParam(r), Cursor: q.Get("cursor"), Search: q.Get("search"),
		Subscribed: queryBool(r, "subscribed"), Sort: q.Get("sort"), Dir: q.Get("dir"),
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
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
	c, err := s.app.GetContact(r.Context(), projectID(r), param(r, "id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// updateContact serves PATCH /contacts/{id}.
func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) error {
	var b contactBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	c, err := s.app.UpdateContact(r.Context(), projectID(r), param(r, "id"),
		app.UpdateContactInput{Email: b.Email, Subscribed: b.Subscribed, Data: b.Data})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
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
	res, err := s.app.LookupContacts(r.Context(), projectID(r), b.Emails)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// contactFields serves GET /contacts/fields.
func (s *Server) contactFields(w http.ResponseWriter, r *http.Request) error {
	f, err := s.app.ContactFields(r.Context(), projectID(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

// contactFieldValues serves GET /contacts/fields/{field}/values.
func (s *Server) contactFieldValues(w http.ResponseWriter, r *http.Request) error {
	v, err := s.app.ContactFieldValues(r.Context(), projectID(r), param(r, "field"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// contactFieldUsage serves GET /contacts/fields/{field}/usage.
func (s *Server) contactFieldUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.app.ContactFieldUsage(r.Context(), projectID(r), param(r, "field"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// deleteContactField serves DELETE /contacts/fields/{field}.
func (s *Server) deleteContactField(w http.ResponseWriter, r *http.Request) error {
	res, err := s.app.DeleteContactField(r.Context(), projectID(r), param(r, "field"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
