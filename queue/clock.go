package queue

import (
	"sort"
	"sync"
	"time"
)

// Clock is where Herald gets the time, so that schedules, delays, retries and
// windows are tested by moving a fake clock rather than by sleeping.
type Clock interface {
	Now() time.Time
	// Until delivers the time once this clock reads t or later. It takes
	// an instant rather than a duration so that a wait computed from Now
	// cannot drift when the clock moves in between.
	Until(t time.Time) <-chan time.Time
}

// SystemClock is the real wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// Until waits on a real timer.
func (SystemClock) Until(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

// FakeClock is a Clock for tests: time stands still until Advance.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock returns a fake clock reading start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Until fires when Advance moves the clock to or past t.
func (c *FakeClock) Until(t time.Time) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(c.now) {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: t, ch: ch})
	return ch
}

// Advance moves the clock forward and fires the timers that came due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	sort.Slice(c.waiters, func(i, j int) bool { return c.waiters[i].at.Before(c.waiters[j].at) })
	kept := c.waiters[:0]
	var due []fakeWaiter
	for _, w := range c.waiters {
		if w.at.After(now) {
			kept = append(kept, w)
		} else {
			due = append(due, w)
		}
	}
	c.waiters = kept
	c.mu.Unlock()
	for _, w := range due {
		w.ch <- now
	}
}

// Waiters is how many timers are pending, so a test can wait until the code
// under test has gone to sleep before advancing.
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
