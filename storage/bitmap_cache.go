package storage

import (
	"container/list"
	"sync"
)

// The bitmap cache holds, per project, the sets that segment counts and
// member pages combine (bitmap_read.go): the contacts of a data value, of
// a data key, of an event name, the unsubscribed, a data key's numbers
// and dates in order, and the id -> rowid directory that turns the ids
// SQLite returns into bit numbers. Each entry carries the version (v of
// its audience_counts row, migration 00019) it was built at; a reader
// uses it only when the version it reads in its own snapshot is the same,
// and otherwise builds it again in that snapshot and puts it back. The
// cache is bounded in bytes and evicts the least recently used entries;
// nothing in it is needed for correctness, so a restart simply starts it
// empty.

// BitmapBudget is the default size of the bitmap cache, in bytes. A
// million contacts make a directory of about 44 MB, a key's numbers or
// dates 12 MB, a set 125 KB.
const BitmapBudget = 128 << 20

// The kinds of cached entries.
const (
	entryDirectory = iota
	entryValue     // contacts with (key, value)
	entryKey       // contacts with the key
	entryEvent     // contacts with an event of the name
	entryUnsub     // unsubscribed contacts
	entryNumbers   // the key's numeric values, in order
	entryDates     // the key's dates (instants), in order
)

type bitmapKey struct {
	project string
	kind    int
	key     string
	value   string
}

type bitmapEntry struct {
	key   bitmapKey
	stamp int64
	value any
	size  int64
}

type bitmapCache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries map[bitmapKey]*list.Element
	lru     list.List // front: most recently used
}

func newBitmapCache(budget int64) *bitmapCache {
	return &bitmapCache{budget: budget, entries: map[bitmapKey]*list.Element{}}
}

// get returns the entry built at stamp, if the cache holds it.
func (c *bitmapCache) get(k bitmapKey, stamp int64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*bitmapEntry)
	if e.stamp != stamp {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.value, true
}

// put stores an entry built at stamp, replacing any other version of it,
// and evicts the least recently used entries beyond the budget. An entry
// larger than the budget is not kept.
func (c *bitmapCache) put(k bitmapKey, stamp int64, value any, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok {
		c.remove(el)
	}
	if size > c.budget {
		return
	}
	c.entries[k] = c.lru.PushFront(&bitmapEntry{key: k, stamp: stamp, value: value, size: size})
	c.used += size
	for c.used > c.budget {
		c.remove(c.lru.Back())
	}
}

func (c *bitmapCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*bitmapEntry)
	delete(c.entries, e.key)
	c.used -= e.size
}

// bytes is the size of what the cache holds.
func (c *bitmapCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// BitmapBytes is what the bitmap cache holds now, in bytes.
func (db *DB) BitmapBytes() int64 { return db.bitmaps.bytes() }
