package app

import "github.com/heraldmail/herald/app/apierr"

// The error values app reports to its callers live in app/apierr, so that
// app's sub-packages answer with the same ones; these are their names here.

// Kind classifies a domain error; web maps each kind to an HTTP status.
type Kind = apierr.Kind

// The kinds of error app reports to its callers.
const (
	KindBadRequest   = apierr.KindBadRequest
	KindValidation   = apierr.KindValidation
	KindUnauthorized = apierr.KindUnauthorized
	KindForbidden    = apierr.KindForbidden
	KindNotFound     = apierr.KindNotFound
	KindConflict     = apierr.KindConflict
	KindTooLarge     = apierr.KindTooLarge
	KindRateLimited  = apierr.KindRateLimited
)

// Error is an error meant for the API client. Anything that is not an
// *Error is an internal failure: logged, and answered with a generic 500.
type Error = apierr.Error

// FieldError is one validation failure at a dot path such as "to.1.email".
type FieldError = apierr.FieldError

// Validation collects field errors while checking a request.
type Validation = apierr.Validation

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) { return apierr.AsError(err) }

// NotFound reports a missing resource with its specific code.
func NotFound(code, format string, args ...any) *Error { return apierr.NotFound(code, format, args...) }

// Conflict reports a request that clashes with existing state.
func Conflict(format string, args ...any) *Error { return apierr.Conflict(format, args...) }

// BadRequest reports invalid parameters.
func BadRequest(format string, args ...any) *Error { return apierr.BadRequest(format, args...) }

// PlainBadRequest is a 400 answered with the bare {error} body.
func PlainBadRequest(msg string) *Error { return apierr.PlainBadRequest(msg) }

// Invalid reports validation failures.
func Invalid(fields ...FieldError) *Error { return apierr.Invalid(fields...) }
