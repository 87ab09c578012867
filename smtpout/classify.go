package smtpout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-smtp"
)

// localError is a failure found on our side (DNS, connect, policy), with the
// RFC 3463 code that describes it, since no server supplied one.
type localError struct {
	enh string
	msg string
	err error
}

func (e *localError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}

func (e *localError) Unwrap() error { return e.err }

// verdict turns err into the outcome fields of a Result. Server replies keep
// their code, enhanced code and text, and are temporary unless 5xx.
// Everything else (network errors, timeouts, a connection dropped mid-DATA)
// is temporary unless a local error says otherwise.
func verdict(err error) Result {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		msg := se.Message
		if err != error(se) {
			msg = err.Error() // wrapped: the wrapper says where it happened
		}
		return Result{Temporary: se.Code/100 != 5, Code: se.Code, EnhancedCode: enhString(se.EnhancedCode), Message: msg}
	}
	enh := "4.4.2" // bad connection
	var le *localError
	if errors.As(err, &le) {
		enh = le.enh
	}
	return Result{Temporary: !strings.HasPrefix(enh, "5"), EnhancedCode: enh, Message: err.Error()}
}

// delivered is the Result for a 250 reply to the final dot, whose text may
// start with an enhanced code and usually carries the server's queue id.
func delivered(text string) Result {
	r := Result{Delivered: true, Code: 250, Message: text}
	if enh, rest, ok := splitEnhanced(text); ok {
		r.EnhancedCode, r.Message = enhString(enh), rest
	}
	return r
}

// broken reports whether err leaves the session unusable: anything that is
// not a server reply, and 421, with which a server announces it is closing.
func broken(err error) bool {
	var se *smtp.SMTPError
	return !errors.As(err, &se) || se.Code == 421
}

func enhString(e smtp.EnhancedCode) string {
	if e == smtp.EnhancedCodeNotSet || e == smtp.NoEnhancedCode {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d", e[0], e[1], e[2])
}

// permanent is a local verdict that no retry can change.
func permanent(enh, msg string) Result {
	return Result{EnhancedCode: enh, Message: msg}
}

// temporary is a local verdict that a later attempt may overturn.
func temporary(enh, msg string) Result {
	return Result{Temporary: true, EnhancedCode: enh, Message: msg}
}
