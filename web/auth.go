package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/app"
)

// authKind is which credential a route takes.
type authKind int

const (
	authNone   authKind = iota // GET /config
	authPublic                 // the public key only: /v1/track
	authSecret                 // the secret key: everything else
)

// authenticate resolves the key to its project, then applies the
// project's rate limit, whose headers go on every authenticated response.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, kind authKind) error {
	key, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		return &app.Error{Kind: app.KindUnauthorized, Code: "MISSING_AUTH",
			Message:    "Missing or malformed Authorization header",
			Suggestion: "Send Authorization: Bearer <key> with your project's API key"}
	}
	want := app.SecretKey
	if kind == authPublic {
		want = app.PublicKey
	}
	if err := s.keyFailuresBlocked(w, r); err != nil {
		return err
	}
	p, err := s.app.Authenticate(r.Context(), key, want)
	if err != nil {
		s.countKeyFailure(r, err)
		return err
	}
	reqOf(r).project = p
	return s.applyRateLimit(w, p.ID)
}

// bearer extracts the token of "Bearer <token>".
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func (s *Server) applyRateLimit(w http.ResponseWriter, projectID string) error {
	if s.limiter == nil {
		return nil
	}
	ok, remaining, reset := s.limiter.allow(projectID)
	h := w.Header()
	resetSecs := strconv.Itoa(reset)
	h.Set("RateLimit-Limit", strconv.Itoa(s.limiter.limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", resetSecs)
	if ok {
		return nil
	}
	h.Set("Retry-After", resetSecs)
	return &app.Error{Kind: app.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
		Message:    "Rate limit exceeded: " + strconv.Itoa(s.limiter.limit) + " requests per minute",
		Details:    map[string]any{"limit": s.limiter.limit, "retryAfter": reset},
		Suggestion: "Wait " + resetSecs + " seconds before retrying"}
}
