package web

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
)

// maxLimiterKeys bounds the memory of a per-IP limiter. Past it, finished
// windows are swept; if every window is still running (many addresses in
// one minute), a new address is let through uncounted rather than stored:
// the addresses already counted stay limited, and the table cannot grow
// without bound under a spread-out flood.
const maxLimiterKeys = 100_000

// FailedKeyLimit is how many requests with a wrong API key one client IP
// may make in a minute before every request it makes with a key is refused.
const FailedKeyLimit = 20

// clientIP is the key of the per-IP limits: the connection's address, an
// IPv6 address by its /64 (one host usually holds a whole /64). Forwarded
// headers are not trusted: any client can write them.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

// publicLimited reports whether a path is one of the routes without a key
// that anyone holding a link can call: tracking and the subscription pages.
func publicLimited(path string) bool {
	for _, p := range []string{"/t/o/", "/t/c/", "/unsubscribe/", "/subscribe/", "/manage/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// limitPublic applies the per-IP limit of the routes without a key. Over
// it, the answer is 429 with Retry-After; the open pixel still answers its
// image (with the 429), so that a mail client shows no broken picture.
func (s *Server) limitPublic(w http.ResponseWriter, r *http.Request) bool {
	if s.publicLimiter == nil || !publicLimited(r.URL.Path) {
		return true
	}
	ok, _, reset := s.publicLimiter.allow(clientIP(r))
	if ok {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(reset))
	if strings.HasPrefix(r.URL.Path, "/t/o/") {
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Cache-Control", "no-store, max-age=0")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(transparentGIF))
		return false
	}
	s.writeError(w, r, rateLimited(s.publicLimiter.limit, reset, "requests per minute from one address"))
	return false
}

// keyFailuresBlocked answers 429 to a client IP that sent too many wrong
// keys within the current minute, before its key is even looked at: a
// right guess must not be told apart from a wrong one.
func (s *Server) keyFailuresBlocked(w http.ResponseWriter, r *http.Request) error {
	if s.keyFailures == nil {
		return nil
	}
	over, reset := s.keyFailures.over(clientIP(r))
	if !over {
		return nil
	}
	w.Header().Set("Retry-After", strconv.Itoa(reset))
	return rateLimited(s.keyFailures.limit, reset, "requests with a wrong API key per minute from one address")
}

// countKeyFailure counts a request whose key was refused.
func (s *Server) countKeyFailure(r *http.Request, err error) {
	if s.keyFailures == nil {
		return
	}
	if e, ok := apierr.AsError(err); ok && e.Code == "INVALID_API_KEY" {
		s.keyFailures.allow(clientIP(r))
	}
}

func rateLimited(limit, reset int, what string) error {
	secs := strconv.Itoa(reset)
	return &apierr.Error{Kind: apierr.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
		Message:    "Rate limit exceeded: " + strconv.Itoa(limit) + " " + what,
		Details:    map[string]any{"limit": limit, "retryAfter": reset},
		Suggestion: "Wait " + secs + " seconds before retrying"}
}

// over reports, without counting, whether key has used up its window, and
// the whole seconds until that window ends.
func (l *rateLimiter) over(key string) (bool, int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || now.Sub(w.start) >= l.window || w.count < l.limit {
		return false, 0
	}
	reset := w.start.Add(l.window).Sub(now)
	return true, int((reset + time.Second - 1) / time.Second)
}
