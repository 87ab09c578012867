package web

import (
	"net/http"
	"strconv"

	"github.com/heraldmail/herald/app/accounts"
)

func itoa(n int) string { return strconv.Itoa(n) }

// listUserProjects serves GET /users/@me/projects.
func (s *Server) listUserProjects(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.UserProjects(r.Context(), reqOf(r).access))
}

// createUserProject serves POST /users/@me/projects.
func (s *Server) createUserProject(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name *string `json:"name"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Accounts.CreateUserProject(r.Context(), reqOf(r).access, b.Name))
}

// getUserProject serves GET /users/@me/projects/{id}.
func (s *Server) getUserProject(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.app.Accounts.ViewProject(reqOf(r).access))
	return nil
}

// updateUserProject serves PATCH /users/@me/projects/{id}.
func (s *Server) updateUserProject(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name     *string `json:"name"`
		Tracking *string `json:"tracking"`
		Language *string `json:"language"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Accounts.UpdateProject(r.Context(), reqOf(r).access, accounts.ProjectUpdate{Name: b.Name, Tracking: b.Tracking, Language: b.Language}))
}

// regenerateKeys serves POST /users/@me/projects/{id}/regenerate-keys.
func (s *Server) regenerateKeys(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.RegenerateProjectKeys(r.Context(), reqOf(r).access))
}

// resetProject serves POST /users/@me/projects/{id}/reset.
func (s *Server) resetProject(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.ResetProject(r.Context(), reqOf(r).access))
}

// deleteUserProject serves DELETE /users/@me/projects/{id}.
func (s *Server) deleteUserProject(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Accounts.DeleteProject(r.Context(), reqOf(r).access.Project.ID); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// listMembers serves GET /projects/{id}/members.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.ListMembers(r.Context(), reqOf(r).access))
}

type memberBody struct {
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

// addMember serves POST /projects/{id}/members.
func (s *Server) addMember(w http.ResponseWriter, r *http.Request) error {
	var b memberBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	added, err := s.app.Accounts.AddMember(r.Context(), reqOf(r).access, b.Email, b.Role)
	if n, ok := accounts.RetryAfter(err); ok { // the per-email cap of invitations
		w.Header().Set("Retry-After", itoa(n))
	}
	return reply(w, http.StatusCreated)(added, err)
}

// updateMember serves PATCH /projects/{id}/members/{userId}.
func (s *Server) updateMember(w http.ResponseWriter, r *http.Request) error {
	var b memberBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Accounts.UpdateMember(r.Context(), reqOf(r).access, param(r, "userId"), b.Role))
}

// removeMember serves DELETE /projects/{id}/members/{userId}.
func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Accounts.RemoveMember(r.Context(), reqOf(r).access, param(r, "userId")); err != nil {
		return err
	}
	noContent(w)
	return nil
}
