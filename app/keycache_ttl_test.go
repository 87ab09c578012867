package app

import (
	"testing"
	"time"
)

// A cached key is trusted for keyCacheTTL, then read again, so that a key
// replaced by another process stops within that time.
func TestKeyCacheEntriesExpire(t *testing.T) {
	c := newKeyCache()
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	_, _, gen := c.get("sk_a")
	c.put("sk_a", Project{ID: "p"}, gen)
	now = now.Add(keyCacheTTL - time.Millisecond)
	if _, ok, _ := c.get("sk_a"); !ok {
		t.Fatal("expired early")
	}
	now = now.Add(time.Millisecond)
	if _, ok, _ := c.get("sk_a"); ok {
		t.Fatal("trusted past its TTL")
	}
}
