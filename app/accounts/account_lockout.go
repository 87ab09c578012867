package accounts

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/heraldmail/herald/app/apierr"
)

// The login lockout: LockoutFailures failed logins (or password changes)
// for one email, known or not, within LockoutWindow lock its logins until
// the oldest failure leaves the window. It is not a rate limit and holds
// whatever HERALD_RATE_LIMIT says.
const (
	LockoutFailures = 10
	LockoutWindow   = 15 * time.Minute
	// lockoutEmails bounds the memory the failures of sprayed emails take:
	// past it, emails whose failures have all left the window are dropped.
	lockoutEmails = 100_000
)

// lockout counts recent failures per email, in memory: a restart forgets
// them, which costs an attacker nothing they could not get by waiting.
type lockout struct {
	mu    sync.Mutex
	now   func() time.Time
	fails map[string][]time.Time // oldest first, at most LockoutFailures
}

func newLockout(now func() time.Time) *lockout {
	return &lockout{now: now, fails: map[string][]time.Time{}}
}

// recent drops failures older than the window; mu is held.
func (l *lockout) recent(email string, now time.Time) []time.Time {
	ts := l.fails[email]
	i := 0
	for i < len(ts) && !ts[i].After(now.Add(-LockoutWindow)) {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fails, email)
	} else {
		l.fails[email] = ts
	}
	return ts
}

// check answers 429 with Retry-After while an email is locked.
func (l *lockout) check(email string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ts := l.recent(email, now)
	if len(ts) < LockoutFailures {
		return nil
	}
	wait := int(math.Ceil(ts[0].Add(LockoutWindow).Sub(now).Seconds()))
	wait = max(wait, 1)
	return &apierr.Error{Kind: apierr.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
		Message:    "Too many failed attempts for this account; try again in " + strconv.Itoa(wait) + " seconds",
		Details:    map[string]any{"retryAfter": wait},
		Suggestion: "Wait, or reset the password"}
}

func (l *lockout) fail(email string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ts := append(l.recent(email, now), now)
	if len(ts) > LockoutFailures {
		ts = ts[len(ts)-LockoutFailures:]
	}
	l.fails[email] = ts
	if len(l.fails) > lockoutEmails {
		for e := range l.fails {
			l.recent(e, now)
		}
	}
}

func (l *lockout) reset(email string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, email)
}

// RetryAfter is the Retry-After of a lockout or rate limit error, if any.
func RetryAfter(err error) (int, bool) {
	e, ok := apierr.AsError(err)
	if !ok || e.Kind != apierr.KindRateLimited {
		return 0, false
	}
	n, ok := e.Details["retryAfter"].(int)
	return n, ok
}
