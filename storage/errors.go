package storage

import "strings"

// opError is an error leaving storage with the operation that failed: the
// exported function or method, so a logged internal error says which query
// or write it came from ("storage.Tx.InsertEvent: FOREIGN KEY constraint
// failed"). Unwrap keeps the cause reachable: callers test the sentinels
// (ErrNotFound, ErrDuplicate, ErrClosed, ErrBadCursor), context errors and
// the driver's errors with errors.Is and errors.As, never with ==.
type opError struct {
	op  string
	err error
}

// Error names the operation once: a cause that is itself a storage error
// ("storage: not found") loses its own "storage: " prefix.
func (e *opError) Error() string {
	return "storage." + e.op + ": " + strings.TrimPrefix(e.err.Error(), "storage: ")
}

func (e *opError) Unwrap() error { return e.err }

// wrap names op in the error *errp, if any. Exported functions defer it
// first thing, so every return names its operation, classification of a
// driver error (ErrDuplicate, a foreign key) having happened before:
//
//	func (tx *Tx) InsertUser(ctx context.Context, u User) (err error) {
//		defer wrap(&err, "Tx.InsertUser")
//
// It allocates only on failure: a deferred call in a function without a
// loop around it is open-coded, a few instructions when err is nil.
func wrap(errp *error, op string) {
	if *errp != nil {
		*errp = &opError{op: op, err: *errp}
	}
}
