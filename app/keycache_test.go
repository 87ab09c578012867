package app

import "testing"

// A lookup that read the database before a regeneration committed must not
// put the replaced key back into the cache after it was forgotten.
func TestKeyCacheIgnoresLookupsOlderThanAForget(t *testing.T) {
	c := newKeyCache()
	p := Project{ID: "p"}
	_, ok, gen := c.get("sk_old") // a request misses and reads the database ...
	if ok {
		t.Fatal("empty cache hit")
	}
	c.forgetKeys("sk_old", "pk_old") // ... while the keys are regenerated
	c.put("sk_old", p, gen)          // ... and then caches what it read
	if _, ok, _ := c.get("sk_old"); ok {
		t.Fatal("a replaced key was cached again")
	}
	_, _, gen = c.get("sk_new")
	c.put("sk_new", p, gen)
	if got, ok, _ := c.get("sk_new"); !ok || got.ID != "p" {
		t.Fatal("a current lookup was not cached")
	}
}
