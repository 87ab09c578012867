package app

import (
	"testing"
	"time"
)

// A verified domain is trusted for senderCacheTTL, then read again, so
// that one removed by another process stops within that time.
func TestSenderCacheEntriesExpire(t *testing.T) {
	c := newSenderCache()
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	_, _, gen := c.get("p", "example.com")
	c.put("p", "example.com", "d1", gen)
	now = now.Add(senderCacheTTL - time.Millisecond)
	if id, ok, _ := c.get("p", "example.com"); !ok || id != "d1" {
		t.Fatalf("got %q %v before the TTL", id, ok)
	}
	if _, ok, _ := c.get("other", "example.com"); ok {
		t.Fatal("another project's domain")
	}
	now = now.Add(time.Millisecond)
	if _, ok, _ := c.get("p", "example.com"); ok {
		t.Fatal("trusted past its TTL")
	}
}

// A lookup that read the database before a domain changed does not put
// its answer back after the change forgot the cache.
func TestSenderCacheDropsAnswersReadBeforeAForget(t *testing.T) {
	c := newSenderCache()
	_, _, gen := c.get("p", "example.com")
	c.forget() // the domain was deleted while the lookup read it
	c.put("p", "example.com", "d1", gen)
	if _, ok, _ := c.get("p", "example.com"); ok {
		t.Fatal("a stale answer was cached")
	}
	_, _, gen = c.get("p", "example.com")
	c.put("p", "example.com", "d1", gen)
	c.forget()
	if _, ok, _ := c.get("p", "example.com"); ok {
		t.Fatal("forget kept an entry")
	}
}
