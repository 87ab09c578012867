package smtpin

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

var (
	errNullSender = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1},
		Message: "The null sender cannot submit mail: use an address at a verified domain of the project"}
	errSubmitTemporary = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "Temporary local problem, try again later"}
)

// submissionSession is one connection's state: go-smtp makes a new one
// after STARTTLS, so a session is either before TLS or inside it.
type submissionSession struct {
	s      *Submission
	conn   *smtp.Conn
	guard  *guardedConn
	remote string
	ip     string
	tls    bool
	sender Sender // set by a successful AUTH
	from   string
	to     []string
}

func (s *Submission) newSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	ss := &submissionSession{s: s, conn: c, guard: guardOf(c.Conn()), remote: c.Conn().RemoteAddr().String(), tls: isTLS}
	ss.ip = ClientKey(c.Conn().RemoteAddr())
	return ss, nil
}

func (ss *submissionSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *submissionSession) Logout() error { return nil }

// closeAfterReply makes the reply being answered the session's last.
func (ss *submissionSession) closeAfterReply() {
	if ss.guard != nil {
		ss.guard.closeAfterWrite.Store(true)
	}
}

// Mail needs TLS and AUTH first, and an address at a verified domain.
func (ss *submissionSession) Mail(from string, _ *smtp.MailOptions) error {
	switch {
	case !ss.tls:
		return errTLSFirst
	case ss.sender == nil:
		return errAuthFirst
	case from == "":
		return errNullSender
	}
	if err := ss.checkSender(from); err != nil {
		return err
	}
	ss.from = from
	return nil
}

// Rcpt takes the recipient; go-smtp refuses the 51st with 452 4.5.3.
func (ss *submissionSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.sender == nil {
		return errAuthFirst
	}
	ss.to = append(ss.to, to)
	return nil
}

// Data reads the message, checks its From field and submits it; the 250
// carrying the email ids is answered only once Submit has committed them.
func (ss *submissionSession) Data(r io.Reader) error {
	if ss.sender == nil {
		return errAuthFirst
	}
	// One of the bounded number of messages held in memory at once; a
	// client refused here has its message read and dropped by go-smtp.
	wait := time.NewTimer(ss.s.cfg.Timeout)
	defer wait.Stop()
	select {
	case ss.s.dataSlots <- struct{}{}:
		defer func() { <-ss.s.dataSlots }()
	case <-wait.C:
		ss.s.log.Warn("submission smtp: too many messages at once", "remote", ss.remote)
		return errSubmitTemporary
	case <-ss.s.ctx.Done():
		return errSubmitTemporary
	}
	data, err := ss.readMessage(r)
	if err != nil {
		return err
	}
	if data = crlfLines(data); len(data) > SubmissionMaxMessageBytes { // CRs given to bare LFs
		return smtp.ErrDataTooLarge
	}
	if err := ss.checkFromField(data); err != nil {
		return err
	}
	ctx, cancel := ss.s.call(ss.s.cfg.SubmitTimeout)
	defer cancel()
	env := Envelope{From: ss.from, To: append([]string(nil), ss.to...)}
	ids, err := ss.sender.Submit(ctx, env, data)
	if err != nil {
		return ss.answer(err, "submit", "")
	}
	if len(ids) != len(env.To) {
		ss.s.log.Error("submission smtp: Submit returned another number of ids than recipients",
			"project", ss.sender.ProjectID(), "recipients", len(env.To), "ids", len(ids))
	}
	ss.s.log.Info("submission smtp: queued", "remote", ss.remote, "project", ss.sender.ProjectID(),
		"from", ss.from, "recipients", len(env.To), "bytes", len(data), "emails", ids)
	// go-smtp answers Data's *SMTPError as it is, so a 250 carries the ids.
	return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.EnhancedCode{2, 0, 0},
		Message: "queued as " + strings.Join(ids, ",")}
}

// readMessage reads the whole message, at most 40 MB (go-smtp stops at
// its own limit too, with 552 5.3.4). A client may take its time over a
// large message as long as bytes keep coming: each read moves the
// deadline on.
func (ss *submissionSession) readMessage(r io.Reader) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(io.LimitReader(&deadlineReader{r: r, conn: ss.conn.Conn(), idle: ss.s.cfg.Timeout},
		SubmissionMaxMessageBytes+1))
	if err != nil {
		return nil, err
	}
	if b.Len() > SubmissionMaxMessageBytes {
		return nil, smtp.ErrDataTooLarge
	}
	return b.Bytes(), nil
}

// deadlineReader extends the connection's read deadline on every read.
type deadlineReader struct {
	r    io.Reader
	conn net.Conn
	idle time.Duration
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	_ = d.conn.SetReadDeadline(time.Now().Add(d.idle))
	return d.r.Read(p)
}

// checkSender asks the Sender whether address may send.
func (ss *submissionSession) checkSender(address string) error {
	ctx, cancel := ss.s.call(ss.s.cfg.CallTimeout)
	defer cancel()
	if err := ss.sender.CheckSender(ctx, address); err != nil {
		return ss.answer(err, "check sender", address)
	}
	return nil
}

// answer turns a Submitter's error into the client's reply. address, when
// known, is the one whose domain a RejectSenderDomain names.
func (ss *submissionSession) answer(err error, what, address string) *smtp.SMTPError {
	var rej *Rejection
	if !errors.As(err, &rej) {
		ss.s.log.Error("submission smtp: "+what+" failed", "remote", ss.remote,
			"project", ss.sender.ProjectID(), "err", err)
		return errSubmitTemporary
	}
	msg := oneLine(rej.Message)
	ss.s.log.Info("submission smtp: refused", "remote", ss.remote, "project", ss.sender.ProjectID(),
		"reason", int(rej.Reason), "message", msg)
	switch rej.Reason {
	case RejectSenderDomain:
		if address != "" {
			msg = "Sender domain " + domainOf(address) + " is not a verified domain of this project"
		}
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: msg}
	case RejectBillingCap:
		return &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: msg}
	case RejectRecipient:
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 3}, Message: msg}
	default:
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: msg}
	}
}

// oneLine keeps a reply's text on one line of reasonable length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400]
	}
	if s == "" {
		s = "Refused"
	}
	return s
}

func domainOf(address string) string {
	return address[strings.LastIndexByte(address, '@')+1:]
}
