package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/sandbox"
)

// listInvitations serves GET /projects/{id}/invitations: the open ones.
func (s *Server) listInvitations(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.ListInvitations(r.Context(), reqOf(r).access))
}

// withdrawInvitation serves DELETE /projects/{id}/invitations/{email}.
func (s *Server) withdrawInvitation(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Accounts.WithdrawInvitation(r.Context(), reqOf(r).access, param(r, "email")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// listSandboxMessages serves GET /sandbox/messages.
func (s *Server) listSandboxMessages(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Sandbox.List(r.Context(), reqOf(r).access,
		sandbox.Query{Limit: limitParam(r), Cursor: r.URL.Query().Get("cursor")}))
}

// getSandboxMessage serves GET /sandbox/messages/{id}.
func (s *Server) getSandboxMessage(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Sandbox.Get(r.Context(), reqOf(r).access, param(r, "id")))
}

// sandboxViewCSP is the captured message's policy in the dashboard's
// frame, the template preview's (no script at all, styles and images as
// mail has them, a sandbox) with popups allowed out of the sandbox, so
// that a link opens in a new tab as a mail client opens it: the open
// pixel and the click are recorded as a recipient's.
const sandboxViewCSP = "default-src 'none'; style-src 'unsafe-inline' 'self'; img-src * data:; font-src *; " +
	"frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox"

// viewSandboxMessage serves GET /sandbox/messages/{id}/view: the message
// as a document for the dashboard's sandboxed frame.
func (s *Server) viewSandboxMessage(w http.ResponseWriter, r *http.Request) error {
	doc, err := s.app.Sandbox.ViewHTML(r.Context(), reqOf(r).access, param(r, "id"))
	if err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", sandboxViewCSP)
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(doc))
	return nil
}
