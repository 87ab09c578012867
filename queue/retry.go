package queue

import "time"

// Retry is how often and when a failing job of a kind is tried again.
type Retry struct {
	MaxAttempts int                             // default 5
	Backoff     func(attempt int) time.Duration // delay before retry n (1-based); default 10s doubling, at most 1h
}

func (r Retry) withDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.Backoff == nil {
		r.Backoff = ExponentialBackoff(10*time.Second, time.Hour)
	}
	return r
}

// ExponentialBackoff doubles base per attempt, up to limit.
func ExponentialBackoff(base, limit time.Duration) func(int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

// PermanentError marks a failure that retrying cannot fix.
type PermanentError struct{ Err error }

func (e PermanentError) Error() string { return e.Err.Error() }
func (e PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so that the job gives up at once instead of retrying.
func Permanent(err error) error { return PermanentError{err} }
