package web

import (
	"net/http"

	"github.com/heraldmail/herald/app"
)

// listEvents serves GET /events (?name= filters by event name).
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.ListEvents(r.Context(), projectID(r),
		app.EventQuery{Limit: limitParam(r), Cursor: q.Get("cursor"), Name: q.Get("name")}))
}

// contactEvents serves GET /events/contact/{contactId}.
func (s *Server) contactEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.ContactEvents(r.Context(), projectID(r), app.EventQuery{Limit: limitParam(r),
		Cursor: q.Get("cursor"), Name: q.Get("name"), ContactID: param(r, "contactId")}))
}

// eventStats serves GET /events/stats.
func (s *Server) eventStats(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.EventStats(r.Context(), projectID(r)))
}

// eventNames serves GET /events/names.
func (s *Server) eventNames(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.EventNames(r.Context(), projectID(r)))
}

// eventUsage serves GET /events/{eventName}/usage.
func (s *Server) eventUsage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.EventUsage(r.Context(), projectID(r), param(r, "eventName")))
}

// deleteEvents serves DELETE /events/{eventName}.
func (s *Server) deleteEvents(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.DeleteEvents(r.Context(), projectID(r), param(r, "eventName")))
}
