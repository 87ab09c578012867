package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/audience"
)

// listEvents serves GET /events (?name= filters by event name).
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Audience.ListEvents(r.Context(), projectID(r),
		audience.EventQuery{Limit: limitParam(r), Cursor: q.Get("cursor"), Name: q.Get("name")}))
}

// contactEvents serves GET /events/contact/{contactId}.
func (s *Server) contactEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	return reply(w, http.StatusOK)(s.app.Audience.ContactEvents(r.Context(), projectID(r), audience.EventQuery{Limit: limitParam(r),
		Cursor: q.Get("cursor"), Name: q.Get("name"), ContactID: param(r, "contactId")}))
}

// eventStats serves GET /events/stats.
func (s *Server) eventStats(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.EventStats(r.Context(), projectID(r)))
}

// eventNames serves GET /events/names.
func (s *Server) eventNames(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.EventNames(r.Context(), projectID(r)))
}

// eventUsage serves GET /events/{eventName}/usage.
func (s *Server) eventUsage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.EventUsage(r.Context(), projectID(r), param(r, "eventName")))
}

// deleteEvents serves DELETE /events/{eventName}.
func (s *Server) deleteEvents(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.DeleteEvents(r.Context(), projectID(r), param(r, "eventName")))
}
