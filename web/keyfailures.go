package web

import "time"

// KeyFailureCounter is the per-address count of wrong API keys, shared with
// the SMTP submission listener (it is an smtpin.KeyFailures): SMTP and API
// wrong keys count in one counter, each side refusing at its own limit
// (the API at FailedKeyLimit with 429, SMTP at 10 with 421).
type KeyFailureCounter struct{ l *rateLimiter }

// KeyFailures returns the server's wrong-key counter, or nil when rate
// limits are off (HERALD_RATE_LIMIT=0): then neither side counts.
func (s *Server) KeyFailures() *KeyFailureCounter {
	if s.keyFailures == nil {
		return nil
	}
	return &KeyFailureCounter{l: s.keyFailures}
}

// Blocked reports whether ip has sent limit or more wrong keys in the
// current minute, and how long until that minute ends. ip is keyed as the
// API keys it: an IPv4 address, an IPv6 address by its /64.
func (k *KeyFailureCounter) Blocked(ip string, limit int) (bool, time.Duration) {
	l := k.l
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[ip]
	if w == nil || now.Sub(w.start) >= l.window || w.count < limit {
		return false, 0
	}
	return true, w.start.Add(l.window).Sub(now)
}

// Count counts one wrong key from ip.
func (k *KeyFailureCounter) Count(ip string) { k.l.allow(ip) }
