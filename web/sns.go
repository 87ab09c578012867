package web

import (
	"io"
	"net/http"
)

// snsWebhook serves POST /webhooks/sns: Amazon SNS deliveries of SES
// bounce, complaint and delivery notifications. SNS posts JSON as
// text/plain, so the body is read as bytes; the signature, not an API
// key, authenticates it.
func (s *Server) snsWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if err := s.app.Messaging.HandleSNS(r.Context(), body); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	return nil
}
