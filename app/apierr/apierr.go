// Package apierr holds the error values app's methods return to their
// callers: an *Error is meant for the API client (web maps its Kind onto a
// status and its fields onto the envelope); anything else is an internal
// failure. It is a leaf package so that app's sub-packages (app/workflow)
// answer with the same values; app re-exports them under their old names.
package apierr

import (
	"errors"
	"fmt"
)

// Kind classifies a domain error; web maps each kind to an HTTP status.
type Kind int

// The kinds of error app reports to its callers.
const (
	KindBadRequest Kind = iota + 1
	KindValidation
	KindUnauthorized
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindRateLimited
)

// Error is an error meant for the API client. Anything that is not an
// *Error is an internal failure: logged, and answered with a generic 500.
type Error struct {
	Kind       Kind
	Code       string // machine-readable code, e.g. CONTACT_NOT_FOUND
	Message    string
	Fields     []FieldError   // validation items
	Details    map[string]any // extra structured context
	Suggestion string
	// Plain asks for the bare {error: message} body that a few dashboard
	// endpoints of the spec use instead of the envelope.
	Plain bool
}

func (e *Error) Error() string { return e.Message }

// FieldError is one validation failure at a dot path such as "to.1.email".
type FieldError struct {
	Field    string `json:"field"`
	Message  string `json:"message"`
	Code     string `json:"code"`
	Received any    `json:"received,omitempty"`
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// NotFound reports a missing resource with its specific code.
func NotFound(code, format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Conflict reports a request that clashes with existing state.
func Conflict(format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Code: "CONFLICT", Message: fmt.Sprintf(format, args...)}
}

// BadRequest reports invalid parameters.
func BadRequest(format string, args ...any) *Error {
	return &Error{Kind: KindBadRequest, Code: "BAD_REQUEST", Message: fmt.Sprintf(format, args...)}
}

// PlainBadRequest is a 400 answered with the bare {error} body.
func PlainBadRequest(msg string) *Error {
	return &Error{Kind: KindBadRequest, Code: "BAD_REQUEST", Message: msg, Plain: true}
}

// Invalid reports validation failures.
func Invalid(fields ...FieldError) *Error {
	msg := "Validation failed"
	if len(fields) == 1 {
		msg = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Kind: KindValidation, Code: "VALIDATION_ERROR", Message: msg, Fields: fields}
}

// Validation collects field errors while checking a request.
type Validation struct{ Fields []FieldError }

// Add records a failure.
func (v *Validation) Add(field, code, message string, received any) {
	v.Fields = append(v.Fields, FieldError{Field: field, Code: code, Message: message, Received: received})
}

// Err returns the collected failures as an *Error, or nil when there were none.
func (v *Validation) Err() error {
	if len(v.Fields) == 0 {
		return nil
	}
	return Invalid(v.Fields...)
}

// Wrap names op in *errp when it is an internal failure, so that a logged
// error says which domain operation it came from ("audience.UpsertContact:
// storage.Tx.InsertContact: ..."). An *Error is left as it is: it is the
// client's answer, with its own words. Exported domain functions defer it
// first thing:
//
//	func (s *Service) UpsertContact(ctx context.Context, ...) (_ UpsertedContact, err error) {
//		defer apierr.Wrap(&err, "audience.UpsertContact")
//
// Unwrap keeps the cause reachable for errors.Is and errors.As.
func Wrap(errp *error, op string) {
	if *errp == nil {
		return
	}
	if _, ok := AsError(*errp); ok {
		return
	}
	*errp = &opError{op: op, err: *errp}
}

// opError is an internal failure with the operation that met it.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }
