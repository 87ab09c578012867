package readcache

import (
	"testing"
	"time"
)

// A cached row is trusted for its TTL, then read again, so that one
// changed by another process holds within that time.
func TestReadCacheEntriesExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New[key, string](func() time.Time { return now })
	_, _, gen := c.Get(key{"p", "example.com"})
	c.Put(key{"p", "example.com"}, "d1", gen)
	now = now.Add(TTL - time.Millisecond)
	if id, ok, _ := c.Get(key{"p", "example.com"}); !ok || id != "d1" {
		t.Fatalf("got %q %v before the TTL", id, ok)
	}
	if _, ok, _ := c.Get(key{"other", "example.com"}); ok {
		t.Fatal("another project's domain")
	}
	now = now.Add(time.Millisecond)
	if _, ok, _ := c.Get(key{"p", "example.com"}); ok {
		t.Fatal("trusted past its TTL")
	}
}

// A lookup that read the database before a change does not put its
// answer back after the change forgot the cache.
func TestReadCacheDropsAnswersReadBeforeAForget(t *testing.T) {
	c := New[string, int](nil)
	_, _, gen := c.Get("p")
	c.Forget() // the row changed while the lookup read it
	c.Put("p", 1, gen)
	if _, ok, _ := c.Get("p"); ok {
		t.Fatal("a stale answer was cached")
	}
	_, _, gen = c.Get("p")
	c.Put("p", 1, gen)
	c.Forget()
	if _, ok, _ := c.Get("p"); ok {
		t.Fatal("forget kept an entry")
	}
}

type key struct{ projectID, domain string }
