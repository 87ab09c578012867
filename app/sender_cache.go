package app

import (
	"sync"
	"time"
)

// senderCache remembers the verified sender domains of projects, so that
// a send does not query the database for its from domain each time (a
// read transaction on the reader pool, 2% of a /v1/send's CPU). Only
// verified domains are cached; a domain deleted or checked again in this
// process is forgotten once that write commits, so it is refused at once.
//
// As in keyCache, a lookup that read the database before such a write
// committed must not put its answer back after forget: gen counts the
// forgets, and put only stores what was read in the generation it names.
// Another process cannot reach this cache, so an entry is trusted for
// senderCacheTTL only: a domain removed elsewhere stops within that time.
type senderCache struct {
	mu  sync.RWMutex
	m   map[senderKey]cachedSender
	gen uint64
	now func() time.Time
}

type senderKey struct{ projectID, domain string }

type cachedSender struct {
	domainID string
	expires  time.Time
}

// senderCacheTTL is how long a verified domain is trusted without reading
// the database again.
const senderCacheTTL = 2 * time.Second

// senderCacheMax bounds the entries; past it the cache starts again.
const senderCacheMax = 10000

func newSenderCache() *senderCache {
	return &senderCache{m: map[senderKey]cachedSender{}, now: time.Now}
}

// get returns the id of the project's verified domain, or the generation
// to pass to put after reading the database.
func (c *senderCache) get(projectID, domain string) (domainID string, ok bool, gen uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[senderKey{projectID, domain}]
	if ok && !c.now().Before(e.expires) {
		ok = false
	}
	return e.domainID, ok, c.gen
}

func (c *senderCache) put(projectID, domain, domainID string, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= senderCacheMax {
		c.m = map[senderKey]cachedSender{}
	}
	c.m[senderKey{projectID, domain}] = cachedSender{domainID: domainID, expires: c.now().Add(senderCacheTTL)}
}

// forget drops every entry: a domain changed (deleted, checked again, its
// project deleted or disabled). Such writes are rare; sends then read the
// database once more.
func (c *senderCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
