package queue

import "strings"

// opError is an error leaving queue with the operation that failed, the
// exported function or method ("queue.Dispatcher.Enqueue: no handler for
// job kind ..."). Unwrap keeps the cause reachable for errors.Is and
// errors.As (storage's sentinels, a context's end). It is storage's
// opError (storage/errors.go) for this package.
type opError struct {
	op  string
	err error
}

// Error names the operation once: a cause that is itself a queue error
// ("queue: ...") loses its own prefix.
func (e *opError) Error() string {
	return "queue." + e.op + ": " + strings.TrimPrefix(e.err.Error(), "queue: ")
}

func (e *opError) Unwrap() error { return e.err }

// wrap names op in the error *errp, if any; exported functions defer it
// first thing, so that every return names its operation.
func wrap(errp *error, op string) {
	if *errp != nil {
		*errp = &opError{op: op, err: *errp}
	}
}
