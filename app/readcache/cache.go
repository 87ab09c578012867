// Package readcache keeps rows that a hot path reads on every request and
// that change rarely, with the generation rule that keeps a stale read
// from being put back after a change.
package readcache

import (
	"sync"
	"time"
)

// Cache keeps rows a hot path reads on every request and that change
// rarely (a project's verified sender domains, its billing caps), so that
// a send does not spend a read transaction on each: on a busy server a
// reader's page cache is stale after every write, and such a lookup costs
// as much as the rest of the request's decoding. The writes that change
// what is cached forget it once they commit, so in this process a change
// holds from the next request on.
//
// A lookup that read the database before such a write
// committed must not put its answer back after forget: gen counts the
// forgets, and put only stores what was read in the generation it names.
// Another process cannot reach this cache, so an entry is trusted for ttl
// only: a change made elsewhere holds within that time.
type Cache[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]readEntry[V]
	gen uint64
	ttl time.Duration
	now func() time.Time
}

type readEntry[V any] struct {
	v       V
	expires time.Time
}

// TTL is how long a cached row is trusted without reading the database
// again: a row changed by another process holds within it.
const TTL = 2 * time.Second

// maxEntries bounds the entries; past it the cache starts again.
const maxEntries = 10000

// New returns an empty cache on the clock now (time.Now when nil).
func New[K comparable, V any](now func() time.Time) *Cache[K, V] {
	if now == nil {
		now = time.Now
	}
	return &Cache[K, V]{m: map[K]readEntry[V]{}, ttl: TTL, now: now}
}

// Get returns the cached value, or the generation to pass to Put after
// reading the database.
func (c *Cache[K, V]) Get(k K) (v V, ok bool, gen uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[k]
	if ok && !c.now().Before(e.expires) {
		ok = false
	}
	return e.v, ok, c.gen
}

func (c *Cache[K, V]) Put(k K, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= maxEntries {
		c.m = map[K]readEntry[V]{}
	}
	c.m[k] = readEntry[V]{v: v, expires: c.now().Add(c.ttl)}
}

// ForgetKeys drops the entries of keys, and what a lookup of any key
// read before it.
func (c *Cache[K, V]) ForgetKeys(keys ...K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, k := range keys {
		delete(c.m, k)
	}
}

// Forget drops every entry. The writes that call it are rare; requests
// then read the database once more.
func (c *Cache[K, V]) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
