package web_test

import (
	"errors"
	"testing"

	"github.com/emersion/go-smtp"
)

// RFC 5321 §4.5.1: postmaster is accepted at every domain the listener
// serves (bounce.<sender domain>, and the inbound host), and abuse too;
// other domains get a 5xx.
func TestInboundAcceptsPostmasterAndAbuse(t *testing.T) {
	e := newInboundEnv(t)
	msg := "From: someone@example.org\nSubject: hello postmaster\n\nHi\n"
	for _, rcpt := range []string{"postmaster@bounce.herald.test", "Abuse@Bounce.Herald.Test",
		"postmaster@mx.herald.test", "abuse@mx.herald.test"} {
		if err := e.mailTo(t, rcpt, msg); err != nil {
			t.Errorf("RCPT %s: %v", rcpt, err)
		}
	}
	for _, rcpt := range []string{"postmaster@herald.test", "postmaster@bounce.example.net",
		"abuse@example.org", "postmaster@bounce."} {
		err := e.mailTo(t, rcpt, msg)
		var se *smtp.SMTPError
		if !errors.As(err, &se) || se.Code/100 != 5 {
			t.Errorf("RCPT %s: %v, want 5xx", rcpt, err)
		}
	}
}
