package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/audience"
)

// countAudience serves POST /audience/count: the live count of an unsaved
// audience, for the dashboard's condition builder and campaign composer.
func (s *Server) countAudience(w http.ResponseWriter, r *http.Request) error {
	var b audience.AudienceCountInput
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Audience.CountAudience(r.Context(), projectID(r), b))
}
