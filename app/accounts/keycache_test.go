package accounts

import "testing"

// A lookup that read the database before a regeneration committed must not
// put the replaced key back into the cache after it was forgotten.
func TestKeyCacheIgnoresLookupsOlderThanAForget(t *testing.T) {
	c := newKeyCache(nil)
	p := Project{ID: "p"}
	_, ok, gen := c.Get("sk_old") // a request misses and reads the database ...
	if ok {
		t.Fatal("empty cache hit")
	}
	c.ForgetKeys("sk_old", "pk_old") // ... while the keys are regenerated
	c.Put("sk_old", p, gen)          // ... and then caches what it read
	if _, ok, _ := c.Get("sk_old"); ok {
		t.Fatal("a replaced key was cached again")
	}
	_, _, gen = c.Get("sk_new")
	c.Put("sk_new", p, gen)
	if got, ok, _ := c.Get("sk_new"); !ok || got.ID != "p" {
		t.Fatal("a current lookup was not cached")
	}
}
