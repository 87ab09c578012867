package web

import (
	"net/http"

	"github.com/heraldmail/herald/app"
)

// listEvents serves GET /events (?name= filters by event name).
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := s.app.ListEvents(r.Context(), projectID(r),
		app.EventQuery{Limit: limitParam(r), Cursor: q.Get("cursor"), Name: q.Get("name")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// contactEvents serves GET /events/contact/{contactId}.
func (s *Server) contactEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := s.app.ContactEvents(r.Context(), projectID(r), app.EventQuery{Limit: limitParam(r),
		Cursor: q.Get("cursor"), Name: q.Get("name"), ContactID: param(r, "contactId")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// eventStats serves GET /events/stats.
func (s *Server) eventStats(w http.ResponseWriter, r *http.Request) error {
	stats, err := s.app.EventStats(r.Context(), projectID(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stats)
	return nil
}

// eventNames serves GET /events/names.
func (s *Server) eventNames(w http.ResponseWriter, r *http.Request) error {
	names, err := s.app.EventNames(r.Context(), projectID(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, names)
	return nil
}

// eventUsage serves GET /events/{eventName}/usage.
func (s *Server) eventUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.app.EventUsage(r.Context(), projectID(r), param(r, "eventName"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// deleteEvents serves DELETE /events/{eventName}.
func (s *Server) deleteEvents(w http.ResponseWriter, r *http.Request) error {
	res, err := s.app.DeleteEvents(r.Context(), projectID(r), param(r, "eventName"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
