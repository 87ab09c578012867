package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
)

// sessionCookieName is the dashboard's session cookie.
const sessionCookieName = "herald_session"

// sessionCookie returns the session cookie's value, "" when absent.
func sessionCookie(r *http.Request) string {
	c, err := r.Cookie(sessionCookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// setSessionCookie sets the cookie for a new session; maxAge 0 clears it.
// The attributes are the contract's: Path=/, HttpOnly, SameSite=Lax, and
// Secure when the server's public URL is https.
func (s *Server) setSessionCookie(w http.ResponseWriter, value string, maxAge time.Duration) {
	secs := int(maxAge / time.Second)
	v := sessionCookieName + "=" + value + "; Path=/; Max-Age=" + strconv.Itoa(secs) + "; HttpOnly; SameSite=Lax"
	if strings.HasPrefix(strings.ToLower(s.app.Accounts.AccountSettings().BaseURL), "https:") {
		v += "; Secure"
	}
	w.Header().Add("Set-Cookie", v)
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

var errCrossOrigin = &apierr.Error{Kind: apierr.KindForbidden, Code: "FORBIDDEN",
	Message: "Cross-origin request refused: Origin is not this server's"}

// checkOrigin refuses a request whose Origin header names another site
// than HERALD_BASE_URL's. A request without Origin passes: browsers send
// it on every cross-origin write.
func (s *Server) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if !strings.EqualFold(strings.TrimSuffix(origin, "/"), originOf(s.app.Accounts.AccountSettings().BaseURL)) {
		return errCrossOrigin
	}
	return nil
}

// originOf is scheme://host[:port] of a URL.
func originOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Scheme + "://" + u.Host
}

// checkCSRF applies the contract's rules to a request that goes the
// cookie's way (no Authorization header, a cookie): a write must come from
// this server's origin and carry a non-empty X-Project-Id, which a form or
// a simple cross-site request cannot set.
func (s *Server) checkCSRF(r *http.Request, rt route, c accounts.Credentials) error {
	if c.Session == "" || (c.Authorization && rt.auth == authSecret) || !isWrite(r.Method) {
		return nil
	}
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	if strings.TrimSpace(r.Header.Get("X-Project-Id")) == "" {
		return apierr.BadRequest("X-Project-Id header is required on writes made with the session cookie")
	}
	return nil
}

// loginGate guards /auth/*: the per-IP limit (off when HERALD_RATE_LIMIT
// is 0) and, on POST, the Origin check.
func (s *Server) loginGate(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Path == "/auth/signup" && s.app.Accounts.SignupMode() == accounts.SignupsClosed {
		// HERALD_DISABLE_SIGNUPS=true: before any check, the Origin's and
		// the limit's too. The other modes need the body (an invitation).
		return accounts.ErrSignupsDisabled
	}
	if s.authLimiter != nil {
		ok, _, reset := s.authLimiter.allow(clientIP(r))
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(reset))
			return &apierr.Error{Kind: apierr.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
				Message:    "Too many requests to /auth from this address",
				Details:    map[string]any{"retryAfter": reset},
				Suggestion: "Wait " + strconv.Itoa(reset) + " seconds before retrying"}
		}
	}
	if r.Method == http.MethodPost {
		return s.checkOrigin(r)
	}
	return nil
}

// authIPLimit is the per-IP budget of /auth/* requests per minute.
const authIPLimit = 60
