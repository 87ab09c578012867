// Package clocktest has the fake clock tests move instead of sleeping.
package clocktest

import (
	"sort"
	"sync"
	"time"
)

// Fake is a clock.Clock for tests: time stands still until Advance.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Until fires when Advance moves the clock to or past t.
func (c *Fake) Until(t time.Time) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(c.now) {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: t, ch: ch})
	return ch
}

// Advance moves the clock forward and fires the timers that came due.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	sort.Slice(c.waiters, func(i, j int) bool { return c.waiters[i].at.Before(c.waiters[j].at) })
	kept := c.waiters[:0]
	var due []waiter
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
func (c *Fake) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
