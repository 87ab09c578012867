package accounts

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/app/readcache"
)

// A cached key is trusted for readcache.TTL, then read again, so that a key
// replaced by another process stops within that time.
func TestKeyCacheEntriesExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newKeyCache(func() time.Time { return now })
	_, _, gen := c.Get("sk_a")
	c.Put("sk_a", Project{ID: "p"}, gen)
	now = now.Add(readcache.TTL - time.Millisecond)
	if _, ok, _ := c.Get("sk_a"); !ok {
		t.Fatal("expired early")
	}
	now = now.Add(time.Millisecond)
	if _, ok, _ := c.Get("sk_a"); ok {
		t.Fatal("trusted past its TTL")
	}
}
