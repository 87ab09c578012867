package verify

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// cache remembers complete DNS facts per domain for a TTL, evicting the
// least recently used domain beyond max entries, and lets concurrent
// verifications of one domain share a single set of lookups (a burst of
// sign-ups at gmail.com asks the DNS once).
type cache struct {
	ttl   time.Duration // <= 0: remember nothing
	max   int
	now   func() time.Time
	fetch func(ctx context.Context, domain string) facts

	mu       sync.Mutex
	entries  map[string]*list.Element // value: *cacheEntry
	order    *list.List               // front: most recently used
	inflight map[string]*flight
}

type cacheEntry struct {
	domain  string
	facts   facts
	expires time.Time
}

// flight is one running set of lookups; done is closed once facts is set.
type flight struct {
	done  chan struct{}
	facts facts
}

func newCache(ttl time.Duration, max int, now func() time.Time, fetch func(context.Context, string) facts) *cache {
	return &cache{
		ttl: ttl, max: max, now: now, fetch: fetch,
		entries:  map[string]*list.Element{},
		order:    list.New(),
		inflight: map[string]*flight{},
	}
}

// get returns the facts about domain, from memory or by joining or
// starting a lookup. It returns when the facts are known or ctx is done;
// in the latter case the facts are all unknown.
func (c *cache) get(ctx context.Context, domain string, timeout time.Duration) facts {
	c.mu.Lock()
	if f, ok := c.lookupLocked(domain); ok {
		c.mu.Unlock()
		return f
	}
	fl, ok := c.inflight[domain]
	if !ok {
		fl = &flight{done: make(chan struct{})}
		c.inflight[domain] = fl
		go c.run(ctx, domain, timeout, fl)
	}
	c.mu.Unlock()
	select {
	case <-fl.done:
		return fl.facts
	case <-ctx.Done():
		return facts{}
	}
}

// run does the lookups of one flight. They are detached from the caller
// that started them, since other callers may be waiting on the result, and
// bounded by timeout instead.
func (c *cache) run(ctx context.Context, domain string, timeout time.Duration, fl *flight) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	fl.facts = c.fetch(ctx, domain)
	c.mu.Lock()
	delete(c.inflight, domain)
	if fl.facts.complete() {
		c.storeLocked(domain, fl.facts)
	}
	c.mu.Unlock()
	close(fl.done)
}

func (c *cache) lookupLocked(domain string) (facts, bool) {
	el, ok := c.entries[domain]
	if !ok {
		return facts{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.removeLocked(el)
		return facts{}, false
	}
	c.order.MoveToFront(el)
	return e.facts, true
}

func (c *cache) storeLocked(domain string, f facts) {
	if c.ttl <= 0 || c.max <= 0 {
		return
	}
	if el, ok := c.entries[domain]; ok {
		c.removeLocked(el)
	}
	e := &cacheEntry{domain: domain, facts: f, expires: c.now().Add(c.ttl)}
	c.entries[domain] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		c.removeLocked(c.order.Back())
	}
}

func (c *cache) removeLocked(el *list.Element) {
	delete(c.entries, el.Value.(*cacheEntry).domain)
	c.order.Remove(el)
}

// len is the number of remembered domains, expired ones included.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
