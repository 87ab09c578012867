package smtpout

import (
	"context"
	"sync"
	"time"
)

// pool keeps idle sessions per host (host:port), so that the next message
// to any domain served by that host skips connect, banner, EHLO and TLS.
// Idle sessions are not "concurrent": the per-domain bound is the limiter's.
type pool struct {
	mu     sync.Mutex
	idle   map[string][]*conn // oldest first
	max    int                // idle sessions kept per host
	ttl    time.Duration      // how long one may stay idle
	closed bool
}

func newPool(max int, ttl time.Duration) *pool {
	return &pool{idle: map[string][]*conn{}, max: max, ttl: ttl}
}

// take returns the most recently used idle session to key that is not
// expired and, when needTLS, is encrypted; nil when there is none. Expired
// sessions found on the way are returned in stale for the caller to close.
func (p *pool) take(key string, needTLS bool, now time.Time) (c *conn, stale []*conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[key]
	for len(list) > 0 && now.Sub(list[0].idleSince) >= p.ttl {
		stale = append(stale, list[0])
		list = list[1:]
	}
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].tls || !needTLS {
			c = list[i]
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	p.set(key, list)
	return c, stale
}

// put makes c idle. It reports false when the pool is closed or full, and
// the caller should then close c itself.
func (p *pool) put(c *conn, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle[c.key]) >= p.max {
		return false
	}
	c.idleSince, c.reused = now, true
	p.idle[c.key] = append(p.idle[c.key], c)
	return true
}

// sweep removes and returns the sessions idle for longer than the ttl.
func (p *pool) sweep(now time.Time) []*conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*conn
	for key, list := range p.idle {
		n := 0
		for n < len(list) && now.Sub(list[n].idleSince) >= p.ttl {
			n++
		}
		out = append(out, list[:n]...)
		p.set(key, list[n:])
	}
	return out
}

// drain closes the pool and returns every idle session.
func (p *pool) drain() []*conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var out []*conn
	for key, list := range p.idle {
		out = append(out, list...)
		delete(p.idle, key)
	}
	return out
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// set stores list, dropping empty entries so that the map does not grow
// with every host ever contacted.
func (p *pool) set(key string, list []*conn) {
	if len(list) == 0 {
		delete(p.idle, key)
		return
	}
	p.idle[key] = list
}

// limiter bounds concurrent sends per destination domain. Entries exist
// only while someone holds or waits for a slot.
type limiter struct {
	mu    sync.Mutex
	max   int
	slots map[string]*slot
}

type slot struct {
	ch    chan struct{}
	users int // holders and waiters
}

func newLimiter(max int) *limiter {
	return &limiter{max: max, slots: map[string]*slot{}}
}

// acquire waits for a slot for key, or until ctx ends.
func (l *limiter) acquire(ctx context.Context, key string) (release func(), err error) {
	l.mu.Lock()
	sl := l.slots[key]
	if sl == nil {
		sl = &slot{ch: make(chan struct{}, l.max)}
		l.slots[key] = sl
	}
	sl.users++
	l.mu.Unlock()
	select {
	case sl.ch <- struct{}{}:
		return func() { <-sl.ch; l.leave(key, sl) }, nil
	case <-ctx.Done():
		l.leave(key, sl)
		return nil, ctx.Err()
	}
}

func (l *limiter) leave(key string, sl *slot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sl.users--; sl.users == 0 {
		delete(l.slots, key)
	}
}
