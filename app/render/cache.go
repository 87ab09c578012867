package render

import (
	"container/list"
	"sync"
)

// cacheKey is a template's text and whether its output is escaped: the
// same text parses differently for an HTML body and for a header.
type cacheKey struct {
	escape bool
	src    string
}

// parseCache is a least-recently-used cache of parsed templates, bounded
// both in entries and in the bytes of source text it keeps, so that a few
// huge templates cannot hold on to unbounded memory.
type parseCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // front: most recently used; values are *cacheEntry
	entries    map[cacheKey]*list.Element
}

type cacheEntry struct {
	key cacheKey
	tpl *compiled
}

func newParseCache(maxEntries, maxBytes int) *parseCache {
	return &parseCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(),
		entries: map[cacheKey]*list.Element{}}
}

func (c *parseCache) get(k cacheKey) (*compiled, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).tpl, true
}

// put adds a parsed template. A template larger than the whole budget is
// not kept: it is parsed again each time rather than evicting everything.
func (c *parseCache) put(k cacheKey, t *compiled) {
	if len(k.src) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok { // parsed concurrently by another caller
		c.order.MoveToFront(el)
		return
	}
	c.entries[k] = c.order.PushFront(&cacheEntry{key: k, tpl: t})
	c.bytes += len(k.src)
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		c.evictOldest()
	}
}

func (c *parseCache) evictOldest() {
	el := c.order.Back()
	e := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= len(e.key.src)
}

// len is the number of cached templates.
func (c *parseCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
