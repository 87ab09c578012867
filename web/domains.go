package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/senders"
)

// listDomains serves GET /domains/project/{projectId}: a bare array.
func (s *Server) listDomains(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Senders.ListDomains(r.Context(), projectID(r), param(r, "projectId")))
}

// addDomain serves POST /domains.
func (s *Server) addDomain(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Domain    *string `json:"domain"`
		ProjectID *string `json:"projectId"`
		Algorithm *string `json:"algorithm"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Senders.AddDomain(r.Context(), projectID(r),
		senders.AddDomainInput{Domain: b.Domain, ProjectID: b.ProjectID, Algorithm: b.Algorithm}))
}

// verifyDomain serves GET /domains/{id}/verify.
func (s *Server) verifyDomain(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Senders.VerifyDomain(r.Context(), projectID(r), param(r, "id")))
}

// deleteDomain serves DELETE /domains/{id}.
func (s *Server) deleteDomain(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Senders.DeleteDomain(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}
