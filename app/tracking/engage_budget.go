package tracking

import (
	"sync"
	"time"
)

// engageBudget bounds the opens and clicks recorded per project in a
// minute (HERALD_PUBLIC_PROJECT_RATE_LIMIT). The per-IP limit stops one
// client; this stops many clients replaying the tokens of many messages
// from growing one project's events table, and its write load, without
// bound. Over it the pixel and the redirect still answer as usual and
// nothing is recorded: the reader of a message must not see a broken image
// or lose the link they clicked because of someone else's flood. It counts
// only what would be recorded, after the once-a-minute rule, so replaying
// one token does not use it up. Subscription links are not counted: their
// writes are bounded by the contacts (a change is written only when the
// state changes), and a budget there would let anyone with one link block
// every recipient's unsubscribe.
type engageBudget struct {
	limit   int // per project per minute; 0: no limit
	mu      sync.Mutex
	windows map[string]*budgetWindow
}

type budgetWindow struct {
	start time.Time
	n     int
}

func newEngageBudget(limit int) *engageBudget {
	return &engageBudget{limit: limit, windows: map[string]*budgetWindow{}}
}

// allow counts one engagement of a project and reports whether it is
// within the project's budget for the current minute. The table holds one
// entry per project that engaged, which the projects table bounds.
func (b *engageBudget) allow(projectID string, now time.Time) bool {
	if b == nil || b.limit <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.windows[projectID]
	if w == nil || now.Sub(w.start) >= time.Minute || now.Before(w.start) {
		w = &budgetWindow{start: now}
		b.windows[projectID] = w
	}
	if w.n >= b.limit {
		return false
	}
	w.n++
	return true
}
