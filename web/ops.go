package web

import (
	"crypto/subtle"
	"net/http"

	"github.com/heraldmail/herald/app/apierr"
)

// The operator's endpoints are answered before the routes table's router:
// no key, no rate limit (a monitor polling them must never be refused for
// polling), only the outer middleware's request id, log line and metrics.
//
//	GET /healthz  200 {"status":"ok"} while the process answers
//	GET /readyz   200 when the database takes a write, the dispatcher runs,
//	              the migrations are current and the relay takes Herald's
//	              credentials; else 503 naming what is not
//	GET /metrics  Prometheus text; Authorization: Bearer HERALD_METRICS_TOKEN
//	              when set
func (s *Server) opsRoutes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"/healthz": s.healthz,
		"/readyz":  s.readyz,
		"/metrics": s.metricsEndpoint,
	}
}

// withOps serves the operator's endpoints and passes every other request
// to next.
func (s *Server) withOps(next http.Handler) http.Handler {
	ops := s.opsRoutes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := ops[r.URL.Path]
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		reqOf(r).route = r.URL.Path
		h(w, r)
	})
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

type readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	res := s.app.Ready(r.Context())
	if !res.Ready {
		writeJSON(w, http.StatusServiceUnavailable, readiness{Status: "unavailable", Checks: res.Checks})
		return
	}
	writeJSON(w, http.StatusOK, readiness{Status: "ok", Checks: res.Checks})
}

func (s *Server) metricsEndpoint(w http.ResponseWriter, r *http.Request) {
	if s.metrics == nil {
		s.writeError(w, r, apierr.NotFound("NOT_FOUND", "Metrics are not enabled"))
		return
	}
	if s.metricsToken != "" {
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.metricsToken)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="herald metrics"`)
			s.writeError(w, r, &apierr.Error{Kind: apierr.KindUnauthorized, Code: "UNAUTHORIZED",
				Message: "GET /metrics needs Authorization: Bearer <HERALD_METRICS_TOKEN>"})
			return
		}
	}
	s.metrics.Handler().ServeHTTP(w, r)
}
