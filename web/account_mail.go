package web

import "net/http"

// The /auth/* endpoints of platform mail: verification and password reset.

func okAuth(w http.ResponseWriter, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}

// verifyEmail serves POST /auth/verify-email {token}.
func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Token *string `json:"token"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return okAuth(w, s.app.Accounts.VerifyUserEmail(r.Context(), b.Token))
}

// requestVerification serves POST /auth/request-verification: for the
// session's user, or {email}.
func (s *Server) requestVerification(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Email *string `json:"email"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return okAuth(w, s.app.Accounts.RequestVerification(r.Context(), sessionCookie(r), b.Email))
}

// requestPasswordReset serves POST /auth/request-password-reset {email}.
func (s *Server) requestPasswordReset(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Email *string `json:"email"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return okAuth(w, s.app.Accounts.RequestPasswordReset(r.Context(), b.Email))
}

// resetPassword serves POST /auth/reset-password {token, newPassword}.
func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Token       *string `json:"token"`
		NewPassword *string `json:"newPassword"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return okAuth(w, s.app.Accounts.ResetPassword(r.Context(), b.Token, b.NewPassword))
}

// security serves GET /users/@me/projects/{id}/security and
// /projects/{id}/security.
func (s *Server) security(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.Security(r.Context(), reqOf(r).access))
}

// setupState serves GET /projects/{id}/setup-state.
func (s *Server) setupState(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.SetupState(r.Context(), reqOf(r).access))
}
