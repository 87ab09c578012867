package smtpout

import (
	"errors"
	"fmt"
	"time"

	"github.com/emersion/go-smtp"
)

// outcome is what a transaction leaves for the caller beyond the verdicts
// it settled.
type outcome struct {
	err   error // the session broke; recipients still pending may try elsewhere
	first bool  // it broke on the first command, before any reply about this message
	code  int   // the last reply code, for logs
}

// transact sends MAIL, a RCPT per pending recipient and DATA over c,
// settling each recipient that got a definite answer. A recipient refused at
// RCPT gets that reply; the reply to the final dot applies to all accepted.
func (s *Sender) transact(d *delivery, c *conn) outcome {
	m, pending := d.msg, d.pending()
	utf8 := needsUTF8(m)
	if utf8 && !c.has("SMTPUTF8") {
		d.settleAll(pending, c.stamp(permanent("5.6.7", "address is not ASCII and "+c.host+" does not support SMTPUTF8")))
		return outcome{}
	}
	if err := c.c.Mail(m.From, &smtp.MailOptions{Size: int64(len(m.Data)), UTF8: utf8}); err != nil {
		if broken(err) {
			return outcome{err: err, first: true, code: codeOf(err)}
		}
		d.settleAll(pending, c.stamp(verdict(err)))
		return outcome{code: codeOf(err)}
	}
	accepted, out := s.rcpts(d, c, pending)
	if out.err != nil {
		return out
	}
	if len(accepted) == 0 {
		out.err = c.reset()
		return out
	}
	return s.data(d, c, accepted)
}

// rcpts sends RCPT for each pending recipient and returns those accepted.
// If the session breaks, the accepted ones stay pending: the message has
// not been sent, so another address may take them.
func (s *Sender) rcpts(d *delivery, c *conn, pending []int) (accepted []int, out outcome) {
	for _, i := range pending {
		err := c.c.Rcpt(d.msg.To[i], nil)
		switch {
		case err == nil:
			accepted = append(accepted, i)
		case broken(err):
			return accepted, outcome{err: err, code: codeOf(err)}
		default:
			d.settle(i, c.stamp(verdict(err)))
			out.code = codeOf(err)
		}
	}
	return accepted, out
}

// data sends the message to the accepted recipients. Once the body has
// started, a failure settles them as temporary: the message must not be
// offered to another host in the same attempt, since this one may have
// taken it.
func (s *Sender) data(d *delivery, c *conn, accepted []int) outcome {
	if !s.cfg.NoChunking && c.has("CHUNKING") {
		return s.bdat(d, c, accepted)
	}
	w, err := c.c.Data()
	if err != nil {
		if broken(err) {
			return outcome{err: err, code: codeOf(err)}
		}
		d.settleAll(accepted, c.stamp(verdict(err)))
		return outcome{err: c.reset(), code: codeOf(err)}
	}
	// go-smtp sets no deadline while the body is written; the final reply
	// gets SubmissionTimeout, the same Data timeout.
	c.g.within(s.cfg.Timeouts.Data)
	if _, err := w.Write(d.msg.Data); err != nil {
		return lostDuring(d, c, accepted, "DATA", err)
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return settleFinal(d, c, accepted, "", err, "the end of DATA")
	}
	return settleFinal(d, c, accepted, resp.StatusText, nil, "")
}

// bdat sends the message as one BDAT chunk (RFC 3030) to a server that
// offers CHUNKING: the bytes go out as they are, with no dot-stuffing here
// and no un-stuffing at the other end, which for a large message is most
// of a session's CPU on both sides. go-smtp's Client has no BDAT, so the
// command goes out under it, on the session's connection, and its reply is
// read from the session's reader. The Client is idle between its commands
// and their replies (it does not pipeline), so it holds none of the bytes
// read here, and its next command finds the session in step.
func (s *Sender) bdat(d *delivery, c *conn, accepted []int) outcome {
	c.g.within(s.cfg.Timeouts.Data)
	defer c.g.SetDeadline(time.Time{})
	if err := c.under.conn.send([]byte(fmt.Sprintf("BDAT %d LAST\r\n", len(d.msg.Data))), d.msg.Data); err != nil {
		return lostDuring(d, c, accepted, "BDAT", err)
	}
	_, text, err := c.under.replies.ReadResponse(250)
	return settleFinal(d, c, accepted, text, replyErr(err), "BDAT")
}

// lostDuring settles the accepted recipients as temporary failures when
// the connection fails while the message is being written.
func lostDuring(d *delivery, c *conn, accepted []int, command string, err error) outcome {
	err = fmt.Errorf("connection lost during %s: %w", command, err)
	d.settleAll(accepted, c.stamp(verdict(err)))
	return outcome{err: err}
}

// settleFinal settles the accepted recipients by the reply to the end of
// the message, or by the failure to get one.
func settleFinal(d *delivery, c *conn, accepted []int, text string, err error, waitedFor string) outcome {
	if err == nil {
		d.settleAll(accepted, c.stamp(delivered(text)))
		return outcome{code: 250}
	}
	var se *smtp.SMTPError
	if !errors.As(err, &se) {
		err = fmt.Errorf("no reply to %s: %w", waitedFor, err)
	}
	d.settleAll(accepted, c.stamp(verdict(err)))
	out := outcome{code: codeOf(err)}
	if broken(err) {
		out.err = err
	}
	return out
}

// reset ends a transaction the server still holds open (MAIL accepted but
// no message sent) so the session can be reused. After a completed DATA
// the server is already back in its initial state (RFC 5321 §4.1.1.4), so
// that case needs no RSET. go-smtp's Reset forgets the EHLO, which is
// redone here so that an idle session is always ready and its extensions
// are known without a round trip.
func (c *conn) reset() error {
	if err := c.c.Reset(); err != nil {
		return err
	}
	return c.c.Hello(c.helloName)
}

// has reports whether the server announced ext. It is local: a session at
// rest has always completed its EHLO.
func (c *conn) has(ext string) bool {
	ok, _ := c.c.Extension(ext)
	return ok
}

// stamp adds which host answered, and how, to a verdict.
func (c *conn) stamp(r Result) Result {
	r.MXHost, r.TLS = c.host, c.tls
	return r
}

func codeOf(err error) int {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

func needsUTF8(m Message) bool {
	if !isASCII(m.From) {
		return true
	}
	for _, rcpt := range m.To {
		if !isASCII(rcpt) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
