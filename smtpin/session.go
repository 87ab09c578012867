package smtpin

import (
	"io"

	"github.com/emersion/go-smtp"
)

// Answers other than acceptance. Handler failures are temporary: the
// sender keeps the message and tries again, so nothing is lost while the
// database is unavailable.
var (
	errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
		Message: "No such mailbox here"}
	errTemporary = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "Temporary local problem, try again later"}
)

// session is one SMTP connection's current transaction.
type session struct {
	s      *Server
	remote string
	from   string
	to     []string
}

func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: s, remote: c.Conn().RemoteAddr().String()}, nil
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

// Mail takes any sender: bounces come from the null sender, and the
// recipient check is what keeps unwanted mail out.
func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := ss.s.call()
	defer cancel()
	ok, err := ss.s.handler.Accept(ctx, to)
	if err != nil {
		ss.s.log.Error("inbound smtp: recipient check failed", "remote", ss.remote, "rcpt", to, "err", err)
		return errTemporary
	}
	if !ok {
		ss.s.log.Debug("inbound smtp: recipient refused", "remote", ss.remote, "rcpt", to)
		return errNoMailbox
	}
	ss.to = append(ss.to, to)
	return nil
}

// Data reads the message whole (go-smtp stops it at the size limit with
// 552) and hands it over.
func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ctx, cancel := ss.s.call()
	defer cancel()
	if err := ss.s.handler.Deliver(ctx, ss.from, ss.to, data); err != nil {
		ss.s.log.Error("inbound smtp: delivery failed", "remote", ss.remote, "from", ss.from, "err", err)
		return errTemporary
	}
	return nil
}
