package tracking

import (
	"strconv"
	"sync"
	"time"
)

// repeatWindow is how often one open of an email, or one click of an
// email's link, is recorded at most. Mail clients and scanners fetch a
// pixel or follow a link several times in a row; and anyone holding a
// message could otherwise grow the events table one request at a time.
// This is not a rate limit: it stays on with HERALD_RATE_LIMIT=0.
const repeatWindow = time.Minute

// maxRepeatKeys bounds the memory of the repeats seen. A sweep of ended
// windows runs at most once a second; when the table is still full, a new
// key is recorded without being remembered (the events table grows by what
// a full table's worth of distinct emails and links can add, no more).
const maxRepeatKeys = 200_000

// engagementRepeats remembers when each open and click was last recorded.
type engagementRepeats struct {
	mu        sync.Mutex
	last      map[string]time.Time
	lastSweep time.Time
}

func newEngagementRepeats() *engagementRepeats {
	return &engagementRepeats{last: map[string]time.Time{}}
}

func repeatKey(emailID string, link int) string {
	return emailID + "/" + strconv.Itoa(link)
}

// claim reports whether an engagement is to be recorded now: false when
// the same one was recorded less than repeatWindow ago.
func (r *engagementRepeats) claim(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.last[key]; ok && now.Sub(t) < repeatWindow && !now.Before(t) {
		return false
	}
	if _, ok := r.last[key]; !ok && len(r.last) >= maxRepeatKeys {
		if now.Sub(r.lastSweep) >= time.Second {
			r.lastSweep = now
			for k, t := range r.last {
				if now.Sub(t) >= repeatWindow {
					delete(r.last, k)
				}
			}
		}
		if len(r.last) >= maxRepeatKeys {
			return true
		}
	}
	r.last[key] = now
	return true
}

// forget undoes a claim whose write failed, so the retry is recorded.
func (r *engagementRepeats) forget(key string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last[key].Equal(at) {
		delete(r.last, key)
	}
}
