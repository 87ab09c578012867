package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/accounts"
)

// The /auth/* endpoints answer {success: true, data?}; the account
// endpoints answer bare bodies, like the resources.

type credentialsBody struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// startSession answers a signup or login: the cookie and {id, email}.
func (s *Server) startSession(w http.ResponseWriter, sess accounts.Session, err error) error {
	if err != nil {
		return err
	}
	s.setSessionCookie(w, sess.Token, s.app.Accounts.AccountSettings().SessionTTL)
	writeData(w, http.StatusOK, map[string]string{"id": sess.User.ID, "email": sess.User.Email})
	return nil
}

// signup serves POST /auth/signup: {email, password, inviteToken?}.
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		credentialsBody
		InviteToken *string `json:"inviteToken"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	sess, err := s.app.Accounts.Signup(r.Context(), accounts.SignupInput{Email: b.Email, Password: b.Password,
		InviteToken: b.InviteToken})
	return s.startSession(w, sess, err)
}

// login serves POST /auth/login.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var b credentialsBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	sess, err := s.app.Accounts.Login(r.Context(), b.Email, b.Password)
	if n, ok := accounts.RetryAfter(err); ok {
		w.Header().Set("Retry-After", itoa(n))
	}
	return s.startSession(w, sess, err)
}

// logout serves GET and POST /auth/logout: it ends the cookie's session,
// if any, and clears the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Accounts.Logout(r.Context(), sessionCookie(r)); err != nil {
		return err
	}
	s.setSessionCookie(w, "", 0)
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}

// oauthConfig serves GET /auth/oauth-config: no provider is configured.
func (s *Server) oauthConfig(w http.ResponseWriter, r *http.Request) error {
	writeData(w, http.StatusOK, oauthProviders())
	return nil
}

func oauthProviders() map[string]bool { return map[string]bool{"github": false, "google": false} }

// me serves GET /users/@me.
func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.app.Accounts.Me(r.Context(), reqOf(r).access))
	return nil
}

// changePassword serves POST /users/@me/password: every session of the
// user ends, and the caller gets a new cookie.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		CurrentPassword *string `json:"currentPassword"`
		NewPassword     *string `json:"newPassword"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	sess, err := s.app.Accounts.ChangePassword(r.Context(), reqOf(r).access, b.CurrentPassword, b.NewPassword)
	if n, ok := accounts.RetryAfter(err); ok {
		w.Header().Set("Retry-After", itoa(n))
	}
	if err != nil {
		return err
	}
	s.setSessionCookie(w, sess.Token, s.app.Accounts.AccountSettings().SessionTTL)
	writeJSON(w, http.StatusOK, sess.User)
	return nil
}
