package app

import (
	"testing"
	"time"
)

// A cached row is trusted for its TTL, then read again, so that one
// changed by another process holds within that time.
func TestReadCacheEntriesExpire(t *testing.T) {
	c := newReadCache[senderKey, string]()
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	_, _, gen := c.get(senderKey{"p", "example.com"})
	c.put(senderKey{"p", "example.com"}, "d1", gen)
	now = now.Add(readCacheTTL - time.Millisecond)
	if id, ok, _ := c.get(senderKey{"p", "example.com"}); !ok || id != "d1" {
		t.Fatalf("got %q %v before the TTL", id, ok)
	}
	if _, ok, _ := c.get(senderKey{"other", "example.com"}); ok {
		t.Fatal("another project's domain")
	}
	now = now.Add(time.Millisecond)
	if _, ok, _ := c.get(senderKey{"p", "example.com"}); ok {
		t.Fatal("trusted past its TTL")
	}
}

// A lookup that read the database before a change does not put its
// answer back after the change forgot the cache.
func TestReadCacheDropsAnswersReadBeforeAForget(t *testing.T) {
	c := newReadCache[string, int]()
	_, _, gen := c.get("p")
	c.forget() // the row changed while the lookup read it
	c.put("p", 1, gen)
	if _, ok, _ := c.get("p"); ok {
		t.Fatal("a stale answer was cached")
	}
	_, _, gen = c.get("p")
	c.put("p", 1, gen)
	c.forget()
	if _, ok, _ := c.get("p"); ok {
		t.Fatal("forget kept an entry")
	}
}
