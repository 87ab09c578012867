// Package web is Herald's HTTP layer: the routes table, authentication,
// rate limiting, idempotency, the error envelope, and one thin handler file
// per resource. Handlers decode and check the request's shape, call one app
// method and encode its result; the rules live in app.
package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
)

// Options configure the HTTP layer.
type Options struct {
	App       *app.App
	Log       *slog.Logger
	Clock     clock.Clock
	RateLimit int // requests per minute per project; 0 disables every rate limit
	Features  map[string]bool
	// BodyTimeout bounds how long a request's whole body may take to
	// arrive (408 after it); 0: no bound of web's own.
	BodyTimeout time.Duration
	// Warnings are the configuration warnings GET /config shows.
	Warnings []string
	// PublicRateLimit is requests per minute per client IP on the routes
	// without a key (tracking, subscription pages); 0: none.
	PublicRateLimit int
	// FailedKeyLimit is wrong keys per minute per client IP before that IP
	// is refused (429) until the minute ends; 0: none.
	FailedKeyLimit int
	// Metrics counts requests and serves GET /metrics (nil: neither),
	// behind MetricsToken when it is set.
	Metrics      *metrics.Metrics
	MetricsToken string
}

// Server is Herald's HTTP handler.
type Server struct {
	app      *app.App
	log      *slog.Logger
	clock    clock.Clock
	limiter  *rateLimiter
	features map[string]bool
	handler  http.Handler

	authLimiter *rateLimiter // per IP on /auth/*; nil when rate limits are off

	bodyTimeout time.Duration
	warnings    []string

	// per client IP: the routes without a key, and wrong keys
	publicLimiter, keyFailures *rateLimiter

	metrics      *metrics.Metrics
	metricsToken string
}

// New builds the handler for every route.
func New(o Options) *Server {
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	s := &Server{app: o.App, log: o.Log, clock: o.Clock, features: o.Features,
		limiter: newRateLimiter(o.RateLimit, time.Minute, o.Clock.Now), bodyTimeout: o.BodyTimeout,
		warnings: append([]string{}, o.Warnings...), metrics: o.Metrics, metricsToken: o.MetricsToken}
	if o.RateLimit > 0 { // HERALD_RATE_LIMIT=0 turns off every rate limit
		s.authLimiter = newRateLimiter(authIPLimit, time.Minute, o.Clock.Now)
		s.publicLimiter = newRateLimiter(o.PublicRateLimit, time.Minute, o.Clock.Now)
		s.keyFailures = newRateLimiter(o.FailedKeyLimit, time.Minute, o.Clock.Now)
	}
	routes := s.routes()
	public := map[string]bool{}
	for _, rt := range routes {
		if rt.auth == authPublic {
			public[rt.path] = true
		}
	}
	router := newRouter(routes, s.chain, http.HandlerFunc(s.notFound))
	router.GlobalOPTIONS = s.preflight(public)
	s.handler = s.outer(s.withOps(withDashboard(router)))
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, apierr.NotFound("NOT_FOUND", "No route for %s %s", r.Method, r.URL.Path))
}

// statusWriter remembers the status for the access log and idempotency.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// outer gives every request, routed or not, a request id, an access log
// line and panic recovery.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req := &request{id: newRequestID()}
		r = withRequest(r, req)
		sw := &statusWriter{ResponseWriter: w}
		sw.Header()["X-Request-Id"] = []string{req.id}
		if r.Body == nil || r.Body == http.NoBody {
			// Nothing more to read: the server's ReadTimeout, a backstop
			// for trickled bodies, must not cancel a long request.
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic in handler", "request_id", req.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.writeError(sw, r, fmt.Errorf("panic: %v", p))
				}
			}
			// The route's pattern, never the path: paths carry link tokens.
			took, route := time.Since(start), req.routeName()
			s.metrics.Request(r.Method, route, sw.status, took)
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", req.id), slog.String("method", r.Method),
				slog.String("route", route), slog.Int("status", sw.status),
				slog.Duration("took", took), slog.String("project_id", req.project.ID))
		}()
		next.ServeHTTP(sw, r)
	})
}

// newRequestID is "req_" and 24 hex digits, built in one allocation.
func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := make([]byte, 4+hex.EncodedLen(len(b)))
	copy(id, "req_")
	hex.Encode(id[4:], b[:])
	return string(id)
}

// chain wraps a route's handler with what its row in the table asks for:
// authentication, the project's rate limit, a body size limit, and
// Idempotency-Key handling.
func (s *Server) chain(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqOf(r).route = rt.path
		if rt.auth == authPublic {
			setCORS(w.Header())
		}
		if rt.auth == authNone && !s.limitPublic(w, r) {
			return
		}
		if rt.auth != authNone {
			if err := s.authenticate(w, r, rt); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		s.wrapBody(w, r, rt.bodyLimit())
		if rt.idempotent && r.Header.Get("Idempotency-Key") != "" {
			s.idempotent(w, r, rt)
			return
		}
		if err := rt.handle(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}
