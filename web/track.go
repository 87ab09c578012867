package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/audience"
)

type trackBody struct {
	Email      *string        `json:"email"`
	Event      *string        `json:"event"`
	Subscribed *bool          `json:"subscribed"`
	Data       map[string]any `json:"data"`
}

// track serves POST /v1/track (public key) and its dashboard alias POST
// /events/track (secret key).
func (s *Server) track(w http.ResponseWriter, r *http.Request) error {
	var b trackBody
	if err := decodeFastJSON(r, &b); err != nil {
		return err
	}
	res, err := s.app.Audience.Track(r.Context(), projectID(r),
		audience.TrackInput{Email: b.Email, Event: b.Event, Subscribed: b.Subscribed, Data: b.Data})
	if err != nil {
		return err
	}
	writeTracked(w, res)
	return nil
}

type verifyBody struct {
	Email *string `json:"email"`
}

// verify serves POST /v1/verify.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) error {
	var b verifyBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return replyData(w, http.StatusOK)(s.app.Audience.VerifyEmail(r.Context(), b.Email))
}

// config serves GET /config: which optional features this server has on.
func (s *Server) config(w http.ResponseWriter, r *http.Request) error {
	features := map[string]bool{}
	for k, v := range s.features {
		features[k] = v
	}
	acct := s.app.Accounts.AccountSettings()
	signups, err := s.app.Accounts.SignupsEnabled(r.Context())
	if err != nil {
		return err
	}
	features["signups"] = signups
	features["sandbox"] = s.app.Sandbox.On()
	writeJSON(w, http.StatusOK, map[string]any{"features": features, "signupsEnabled": signups, "sandbox": s.app.Sandbox.On(),
		"signupMode": acct.SignupMode, "systemMail": acct.SystemMail, "billing": false, "oauth": oauthProviders(),
		"warnings": s.warnings})
	return nil
}
