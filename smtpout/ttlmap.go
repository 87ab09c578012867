package smtpout

import (
	"sync"
	"time"
)

// ttlMap is a small concurrent map whose entries expire. Once it holds
// sweepAt entries, adding a key first drops the expired ones, which bounds
// its size by the keys seen within one ttl.
type ttlMap[V any] struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v     V
	until time.Time
}

const sweepAt = 1024

func newTTLMap[V any](ttl time.Duration) *ttlMap[V] {
	return &ttlMap[V]{ttl: ttl, m: map[string]ttlEntry[V]{}}
}

func (t *ttlMap[V]) get(key string, now time.Time) (V, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[key]
	if !ok || now.After(e.until) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put stores v for one ttl from now. A ttl <= 0 stores nothing.
func (t *ttlMap[V]) put(key string, v V, now time.Time) {
	if t.ttl <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.m[key]; !ok && len(t.m) >= sweepAt {
		for k, e := range t.m {
			if now.After(e.until) {
				delete(t.m, k)
			}
		}
	}
	t.m[key] = ttlEntry[V]{v: v, until: now.Add(t.ttl)}
}

func (t *ttlMap[V]) delete(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, key)
}
