package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/apierr"
)

// billingDisabled answers the payment provider's endpoints: Herald has
// none, whoever asks.
func (s *Server) billingDisabled(w http.ResponseWriter, r *http.Request) error {
	return &apierr.Error{Kind: apierr.KindNotFound, Code: "BILLING_DISABLED",
		Message: "Billing is not enabled on this server: it has no payment provider"}
}

// billingLimits serves GET /users/@me/projects/{id}/billing-limits.
func (s *Server) billingLimits(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.BillingLimits(r.Context(), reqOf(r).access))
}

// setBillingLimits serves PUT /users/@me/projects/{id}/billing-limits.
func (s *Server) setBillingLimits(w http.ResponseWriter, r *http.Request) error {
	var b map[string]json.RawMessage
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Accounts.SetBillingLimits(r.Context(), reqOf(r).access, b))
}

// billingConsumption serves GET /users/@me/projects/{id}/billing-consumption.
func (s *Server) billingConsumption(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Accounts.BillingConsumption(r.Context(), reqOf(r).access))
}
