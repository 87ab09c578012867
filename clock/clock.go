// Package clock is where Herald gets the time. Everything time-based
// (schedules, delays, retries, windows, leases) reads a Clock passed in, so
// that tests move a fake one (clock/clocktest) instead of sleeping.
package clock

import "time"

// Clock is the time source.
type Clock interface {
	Now() time.Time
	// Until delivers the time once this clock reads t or later. It takes
	// an instant rather than a duration so that a wait computed from Now
	// cannot drift when the clock moves in between.
	Until(t time.Time) <-chan time.Time
}

// System is the real wall clock.
type System struct{}

// Now returns the current time.
func (System) Now() time.Time { return time.Now() }

// Until waits on a real timer.
func (System) Until(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

// Stamp is c's time as Herald stores it: UTC, to the millisecond, so that a
// value read back from a row equals the one written.
func Stamp(c Clock) time.Time { return c.Now().UTC().Truncate(time.Millisecond) }
