package web

import (
	"net/http"
	"strings"
)

// The public key exists to be used from browsers, so the routes that take
// it (POST /v1/track) answer cross-origin requests: any origin, since the
// key alone names the project and grants nothing but tracking. Every other
// route takes the secret key, which must never be in a browser, and sends
// no CORS headers.

const (
	corsMethods = "POST, OPTIONS"
	corsHeaders = "Authorization, Content-Type, Idempotency-Key"
)

// The CORS header values, shared by every answer (net/http only reads
// them; Header.Set would allocate a slice per request).
var (
	corsAnyOrigin = []string{"*"}
	corsExposed   = []string{"X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After"}
)

func setCORS(h http.Header) {
	h["Access-Control-Allow-Origin"], h["Access-Control-Expose-Headers"] = corsAnyOrigin, corsExposed
}

// preflight answers OPTIONS: with CORS headers for public-key routes, and
// a bare 204 elsewhere.
func (s *Server) preflight(publicPaths map[string]bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if publicPaths[strings.TrimSuffix(r.URL.Path, "/")] {
			setCORS(w.Header())
			w.Header().Set("Access-Control-Allow-Methods", corsMethods)
			w.Header().Set("Access-Control-Allow-Headers", corsHeaders)
			w.Header().Set("Access-Control-Max-Age", "86400")
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
