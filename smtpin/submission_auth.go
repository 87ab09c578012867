package smtpin

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Replies about TLS and authentication.
var (
	errTLSFirst = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0},
		Message: "Must issue a STARTTLS command first"}
	errAuthFirst = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0},
		Message: "Authentication required: AUTH PLAIN or LOGIN with the project's secret key as the password"}
	errBadCredentials = &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8},
		Message: "Authentication credentials invalid: the password must be a secret key (sk_...) of a project"}
	errAuthUnavailable = &smtp.SMTPError{Code: 454, EnhancedCode: smtp.EnhancedCode{4, 7, 0},
		Message: "Temporary authentication failure, try again later"}
	errMechanism = &smtp.SMTPError{Code: 504, EnhancedCode: smtp.EnhancedCode{5, 5, 4},
		Message: "Unsupported authentication mechanism: use PLAIN or LOGIN"}
)

// replyLine writes a reply as go-smtp would, for the connections refused
// before go-smtp sees them.
func replyLine(r *smtp.SMTPError) string {
	e := r.EnhancedCode
	return fmt.Sprintf("%d %d.%d.%d %s", r.Code, e[0], e[1], e[2], r.Message)
}

// tooManyFailures answers an address that sent too many wrong keys.
func tooManyFailures(retry time.Duration) *smtp.SMTPError {
	secs := int((retry + time.Second - 1) / time.Second)
	return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0},
		Message: fmt.Sprintf("Too many failed authentications from your address, try again in %d seconds", secs)}
}

// AuthMechanisms offers PLAIN and LOGIN inside TLS only: go-smtp shows
// them in EHLO when there are any.
func (ss *submissionSession) AuthMechanisms() []string {
	if !ss.tls {
		return nil
	}
	return []string{sasl.Plain, sasl.Login}
}

// Auth starts an AUTH exchange. Before TLS it is refused with 530; from an
// address blocked for wrong keys it gets 421 and the connection closes
// (before the key is looked at: a right guess must not be told apart).
func (ss *submissionSession) Auth(mech string) (sasl.Server, error) {
	if !ss.tls {
		return nil, errTLSFirst
	}
	if blocked, retry := ss.s.blocked(ss.ip); blocked {
		ss.s.log.Warn("submission smtp: AUTH from a blocked address", "remote", ss.remote)
		ss.closeAfterReply()
		return nil, tooManyFailures(retry)
	}
	switch strings.ToUpper(mech) {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, _, password string) error { return ss.authenticate(password) }), nil
	case sasl.Login:
		return &loginServer{authenticate: ss.authenticate}, nil
	}
	return nil, errMechanism
}

// authenticate checks the password, a project's secret key; the user
// name is ignored (clients insist on one; the docs say "herald").
func (ss *submissionSession) authenticate(password string) error {
	ctx, cancel := ss.s.call(ss.s.cfg.CallTimeout)
	defer cancel()
	sender, err := ss.s.sub.Authenticate(ctx, password)
	switch {
	case errors.Is(err, ErrBadKey):
		ss.s.countFailure(ss.ip)
		ss.s.log.Warn("submission smtp: wrong key", "remote", ss.remote)
		return errBadCredentials
	case err != nil:
		ss.s.log.Error("submission smtp: key check failed", "remote", ss.remote, "err", err)
		return errAuthUnavailable
	}
	ss.sender = sender
	ss.s.log.Info("submission smtp: authenticated", "remote", ss.remote, "project", sender.ProjectID())
	return nil
}

// loginServer is the server side of AUTH LOGIN (draft-murchison-sasl-login):
// "Username:", then "Password:". A client may send the user name with
// the AUTH command itself.
type loginServer struct {
	authenticate func(password string) error
	step         int
}

func (l *loginServer) Next(response []byte) (challenge []byte, done bool, err error) {
	switch l.step {
	case 0:
		l.step = 1
		if response == nil {
			return []byte("Username:"), false, nil
		}
		fallthrough // the user name came with the command
	case 1:
		l.step = 2
		return []byte("Password:"), false, nil
	case 2:
		l.step = 3
		return nil, true, l.authenticate(string(response))
	}
	return nil, false, sasl.ErrUnexpectedClientResponse
}
