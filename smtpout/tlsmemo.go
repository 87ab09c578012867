package smtpout

import (
	"sync"
	"time"
)

// tlsMemo remembers, per host, the TLS rung that last worked when it was not
// the top one, so that a host with a self-signed certificate or a broken
// STARTTLS does not cost one or two failed connections per message. Entries
// expire so that a host that fixes its TLS is tried properly again.
type tlsMemo struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[string]memoEntry
}

type memoEntry struct {
	rung  rung
	until time.Time
}

// sweepAt is the size beyond which put drops expired entries, which bounds
// the map by the hosts seen within one ttl.
const sweepAt = 1024

func newTLSMemo(ttl time.Duration) *tlsMemo {
	return &tlsMemo{ttl: ttl, m: map[string]memoEntry{}}
}

// get returns the rung to start from for key.
func (t *tlsMemo) get(key string, now time.Time) rung {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[key]
	if !ok || now.After(e.until) {
		return rungVerified
	}
	return e.rung
}

// put records that r worked for key. A live entry for the same rung keeps
// its expiry: refreshing it on every use would never retry the top rung.
func (t *tlsMemo) put(key string, r rung, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r == rungVerified {
		delete(t.m, key)
		return
	}
	if e, ok := t.m[key]; ok && e.rung == r && !now.After(e.until) {
		return
	}
	if _, ok := t.m[key]; !ok && len(t.m) >= sweepAt {
		for k, e := range t.m {
			if now.After(e.until) {
				delete(t.m, k)
			}
		}
	}
	t.m[key] = memoEntry{rung: r, until: now.Add(t.ttl)}
}
