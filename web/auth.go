package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
)

// authKind is which credential a route takes. Every row of the routes
// table names one: the zero value is no rule at all, refused at run time
// and by the route-access test.
type authKind int

const (
	authUndeclared authKind = iota // a row without a rule: a bug
	authNone                       // no credential: GET /config, links in mail
	authPublic                     // the public key only: /v1/track
	authSecret                     // resources: the secret key, or the session cookie + X-Project-Id
	authLogin                      // /auth/*: no credential; Origin checked on POST; per-IP limit
	authUser                       // account routes of the user: the session cookie only
	authProject                    // account routes on the path's {id} project: the cookie only, with a role
)

// rule is the app's access rule of a route.
func (rt route) rule() accounts.Rule {
	switch rt.auth {
	case authPublic:
		return accounts.Rule{Keys: accounts.PublicKey}
	case authSecret:
		return accounts.Rule{Keys: accounts.SecretKey, Session: true, Project: true, Role: accounts.RoleMember}
	case authUser:
		return accounts.Rule{Session: true, Unverified: rt.unverified}
	case authProject:
		return accounts.Rule{Session: true, Project: true, Role: rt.role}
	}
	return accounts.Rule{}
}

// takesSession reports whether the route takes the session cookie.
func (rt route) takesSession() bool {
	return rt.auth == authSecret || rt.auth == authUser || rt.auth == authProject
}

// authenticate runs the one authorization step of a route (app.Authorize)
// and applies the project's rate limit, whose headers go on every
// authenticated response.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, rt route) error {
	switch rt.auth {
	case authUndeclared:
		return fmt.Errorf("route %s %s declares no access rule", rt.method, rt.path)
	case authLogin:
		return s.loginGate(w, r)
	}
	c := accounts.Credentials{}
	if h := r.Header.Get("Authorization"); h != "" {
		c.Authorization = true
		c.Key, _ = bearer(h)
		if err := s.keyFailuresBlocked(w, r); err != nil {
			return err
		}
	}
	if rt.takesSession() {
		c.Session = sessionCookie(r)
		if err := s.checkCSRF(r, rt, c); err != nil {
			return err
		}
	}
	switch rt.auth {
	case authSecret:
		c.ProjectID = strings.TrimSpace(r.Header.Get("X-Project-Id"))
	case authProject:
		c.ProjectID = param(r, "id")
	}
	acc, err := s.app.Accounts.Authorize(r.Context(), c, rt.rule())
	if err != nil {
		s.countKeyFailure(r, err)
		return err
	}
	reqOf(r).project = acc.Project
	reqOf(r).access = acc
	if acc.Project.ID == "" || rt.auth != authSecret && rt.auth != authPublic {
		return nil
	}
	return s.applyRateLimit(w, acc.Project.ID)
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
	// The limit's value is the same on every answer; the two that change
	// share one backing array (every authenticated request pays these).
	values := []string{strconv.Itoa(remaining), resetSecs}
	h["Ratelimit-Limit"] = s.limiter.limitHeader // the canonical keys Header.Set would use
	h["Ratelimit-Remaining"], h["Ratelimit-Reset"] = values[0:1:1], values[1:2:2]
	if ok {
		return nil
	}
	h.Set("Retry-After", resetSecs)
	return &apierr.Error{Kind: apierr.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
		Message:    "Rate limit exceeded: " + strconv.Itoa(s.limiter.limit) + " requests per minute",
		Details:    map[string]any{"limit": s.limiter.limit, "retryAfter": reset},
		Suggestion: "Wait " + resetSecs + " seconds before retrying"}
}
