package web

import (
	"strconv"
	"sync"
	"time"
)

// rateLimiter counts requests per project in fixed windows. A fixed window
// is what the RateLimit-* headers describe exactly: how many are left and
// when the count resets.
type rateLimiter struct {
	limit       int
	limitHeader []string // the RateLimit-Limit header's value, shared: read only
	window      time.Duration
	now         func() time.Time

	mu        sync.Mutex
	windows   map[string]*rateWindow
	lastSweep time.Time
}

type rateWindow struct {
	start time.Time
	count int
}

// newRateLimiter returns nil when limit is 0: no limit.
func newRateLimiter(limit int, window time.Duration, now func() time.Time) *rateLimiter {
	if limit <= 0 {
		return nil
	}
	return &rateLimiter{limit: limit, limitHeader: []string{strconv.Itoa(limit)}, window: window, now: now,
		windows: map[string]*rateWindow{}}
}

// allow counts one request and reports whether it is within the limit,
// how many remain, and the whole seconds until the window resets.
func (l *rateLimiter) allow(key string) (ok bool, remaining, resetSecs int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || now.Sub(w.start) >= l.window {
		// A sweep walks the whole table, so it runs at most once a second.
		if w == nil && len(l.windows) > 10000 && now.Sub(l.lastSweep) >= time.Second {
			l.sweep(now)
			l.lastSweep = now
		}
		if w == nil && len(l.windows) >= maxLimiterKeys {
			return true, l.limit - 1, int(l.window / time.Second) // see maxLimiterKeys
		}
		w = &rateWindow{start: now}
		l.windows[key] = w
	}
	reset := w.start.Add(l.window).Sub(now)
	resetSecs = int((reset + time.Second - 1) / time.Second)
	if w.count >= l.limit {
		return false, 0, resetSecs
	}
	w.count++
	return true, l.limit - w.count, resetSecs
}

// sweep drops finished windows so the map stays as large as the number of
// projects active in the last window.
func (l *rateLimiter) sweep(now time.Time) {
	for k, w := range l.windows {
		if now.Sub(w.start) >= l.window {
			delete(l.windows, k)
		}
	}
}
