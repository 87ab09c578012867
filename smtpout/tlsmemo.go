package smtpout

import "time"

// tlsMemo remembers, per host, the TLS rung that last worked when it was not
// the top one, so that a host with a self-signed certificate or a broken
// STARTTLS does not cost one or two failed connections per message. Entries
// expire so that a host that fixes its TLS is tried properly again.
type tlsMemo struct{ m *ttlMap[rung] }

func newTLSMemo(ttl time.Duration) *tlsMemo { return &tlsMemo{m: newTTLMap[rung](ttl)} }

// get returns the rung to start from for key.
func (t *tlsMemo) get(key string, now time.Time) rung {
	r, ok := t.m.get(key, now)
	if !ok {
		return rungVerified
	}
	return r
}

// put records that r worked for key. A live entry for the same rung keeps
// its expiry: refreshing it on every use would never retry the top rung.
func (t *tlsMemo) put(key string, r rung, now time.Time) {
	if r == rungVerified {
		t.m.delete(key)
		return
	}
	if old, ok := t.m.get(key, now); ok && old == r {
		return
	}
	t.m.put(key, r, now)
}
