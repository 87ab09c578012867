package app

import (
	"sync"
	"time"
)

// readCache keeps rows a hot path reads on every request and that change
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
type readCache[K comparable, V any] struct {
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

// readCacheTTL is how long a cached row is trusted without reading the
// database again, as long as a cached API key.
const readCacheTTL = keyCacheTTL

// readCacheMax bounds the entries; past it the cache starts again.
const readCacheMax = 10000

func newReadCache[K comparable, V any]() *readCache[K, V] {
	return &readCache[K, V]{m: map[K]readEntry[V]{}, ttl: readCacheTTL, now: time.Now}
}

// get returns the cached value, or the generation to pass to put after
// reading the database.
func (c *readCache[K, V]) get(k K) (v V, ok bool, gen uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[k]
	if ok && !c.now().Before(e.expires) {
		ok = false
	}
	return e.v, ok, c.gen
}

func (c *readCache[K, V]) put(k K, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= readCacheMax {
		c.m = map[K]readEntry[V]{}
	}
	c.m[k] = readEntry[V]{v: v, expires: c.now().Add(c.ttl)}
}

// forgetKeys drops the entries of keys, and what a lookup of any key
// read before it.
func (c *readCache[K, V]) forgetKeys(keys ...K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, k := range keys {
		delete(c.m, k)
	}
}

// forget drops every entry. The writes that call it are rare; requests
// then read the database once more.
func (c *readCache[K, V]) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}

// senderKey names a sender domain of a project.
type senderKey struct{ projectID, domain string }
