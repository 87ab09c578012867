package smtpout

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// preamble speaks the opening of a session itself (banner, EHLO, STARTTLS)
// before handing the connection to a go-smtp Client. go-smtp offers
// STARTTLS only through NewClientStartTLS, whose first EHLO names us
// "localhost"; receivers may reject that, and the EHLO name is part of the
// sending reputation. Doing the opening here also gives the banner its own
// timeout and tells a missing STARTTLS apart from a failed one.
type preamble struct {
	rw net.Conn // the session so far: the guarded TCP connection, or TLS over it
	br *bufio.Reader
	tp *textproto.Reader
}

func newPreamble(rw net.Conn) *preamble {
	p := &preamble{}
	p.use(rw)
	return p
}

func (p *preamble) use(rw net.Conn) {
	p.rw, p.br = rw, bufio.NewReader(rw)
	p.tp = textproto.NewReader(p.br)
}

// within sets a deadline d from now; the guard underneath caps it.
func (p *preamble) within(d time.Duration) { p.rw.SetDeadline(time.Now().Add(d)) }

// greet reads the banner. Anything but 220 means this host will not take
// mail now; the caller moves on to the next one.
func (p *preamble) greet(timeout time.Duration) error {
	p.within(timeout)
	_, _, err := p.tp.ReadResponse(220)
	return replyErr(err)
}

// ehlo introduces us and reports whether STARTTLS is offered. A server that
// does not know EHLO (500/502) simply offers no STARTTLS; the go-smtp Client
// later falls back to HELO on its own.
func (p *preamble) ehlo(hostname string, timeout time.Duration) (starttls bool, err error) {
	p.within(timeout)
	if _, err := fmt.Fprintf(p.rw, "EHLO %s\r\n", hostname); err != nil {
		return false, err
	}
	_, msg, err := p.tp.ReadResponse(250)
	if err != nil {
		err = replyErr(err)
		var se *smtp.SMTPError
		if errors.As(err, &se) && (se.Code == 500 || se.Code == 502) {
			return false, nil
		}
		return false, err
	}
	lines := strings.Split(msg, "\n")
	for _, line := range lines[1:] {
		if f := strings.Fields(line); len(f) > 0 && strings.EqualFold(f[0], "STARTTLS") {
			return true, nil
		}
	}
	return false, nil
}

// startTLS upgrades the session. Every failure but a broken connection is a
// *tlsError, so that the ladder knows to step down.
func (p *preamble) startTLS(cfg *tls.Config, timeout time.Duration) error {
	p.within(timeout)
	if _, err := io.WriteString(p.rw, "STARTTLS\r\n"); err != nil {
		return err // the connection failed, not TLS
	}
	if _, _, err := p.tp.ReadResponse(220); err != nil {
		return &tlsError{err: replyErr(err)}
	}
	// Bytes already buffered past the 220 were sent before the handshake, in
	// plain text, and would be read as if protected (the STARTTLS command
	// injection class of attacks), so they are refused.
	if p.br.Buffered() > 0 {
		return &tlsError{err: errors.New("data sent before the TLS handshake")}
	}
	tc := tls.Client(p.rw, cfg)
	p.within(timeout)
	if err := tc.Handshake(); err != nil {
		return &tlsError{err: err}
	}
	p.use(tc)
	return nil
}

// handover returns the connection a go-smtp Client should use: it replays a
// banner, which the Client insists on reading first, and then yields what
// the session sends next, starting with anything left in the preamble's
// buffer. The session stays reachable below the Client for BDAT.
func (p *preamble) handover() *underClient {
	rc := &replayConn{Conn: p.rw, r: io.MultiReader(strings.NewReader(replayedBanner), p.br)}
	return &underClient{conn: rc, replies: p.tp}
}

// underClient is the session below a go-smtp Client: its connection, and
// a reader of replies over the same buffered stream the Client reads from.
type underClient struct {
	conn    *replayConn
	replies *textproto.Reader
}

const replayedBanner = "220 banner already read\r\n"

// replayConn is a connection whose reads come from r and whose writes are
// gathered until the next read. Without pipelining an SMTP client always
// reads the reply to what it wrote, so each command, and each message that
// go-smtp's 4 KB buffer hands over in pieces, leaves in one write instead
// of one per 4 KB: system calls are a good part of a delivery's cost.
type replayConn struct {
	net.Conn
	r   io.Reader
	out []byte // written, not yet sent
}

// maxGathered bounds the bytes held back, so that a large message streams.
const maxGathered = 64 << 10

func (c *replayConn) Read(b []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

func (c *replayConn) Write(b []byte) (int, error) {
	if len(c.out)+len(b) > maxGathered {
		if err := c.flush(); err != nil {
			return 0, err
		}
		if len(b) >= maxGathered {
			return c.Conn.Write(b)
		}
	}
	c.out = append(c.out, b...)
	return len(b), nil
}

// send writes a command and the bytes that follow it, with what was
// gathered before, and flushes: the caller reads the reply next, and not
// through Read.
func (c *replayConn) send(cmd, data []byte) error {
	if _, err := c.Write(cmd); err != nil {
		return err
	}
	if _, err := c.Write(data); err != nil {
		return err
	}
	return c.flush()
}

func (c *replayConn) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.out)
	c.out = c.out[:0]
	return err
}

// tlsError is a failed STARTTLS command or handshake.
type tlsError struct{ err error }

func (e *tlsError) Error() string { return "STARTTLS: " + e.err.Error() }
func (e *tlsError) Unwrap() error { return e.err }

// verificationFailed reports whether the handshake failed only because the
// certificate could not be verified, the one TLS failure that an
// unverified retry can get past.
func verificationFailed(err error) bool {
	var ve *tls.CertificateVerificationError
	return errors.As(err, &ve)
}

// replyErr turns a textproto reply error into the *smtp.SMTPError that
// go-smtp's client returns, so that one classifier handles both.
func replyErr(err error) error {
	var te *textproto.Error
	if !errors.As(err, &te) {
		return err
	}
	se := &smtp.SMTPError{Code: te.Code, Message: te.Msg}
	if enh, rest, ok := splitEnhanced(te.Msg); ok {
		se.EnhancedCode, se.Message = enh, rest
	}
	return se
}

// splitEnhanced splits a reply text that starts with an RFC 2034 enhanced
// status code, such as "5.1.1 no such user".
func splitEnhanced(text string) (smtp.EnhancedCode, string, bool) {
	first, rest, _ := strings.Cut(text, " ")
	parts := strings.Split(first, ".")
	if len(parts) != 3 {
		return smtp.EnhancedCode{}, text, false
	}
	var enh smtp.EnhancedCode
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n > 999 {
			return smtp.EnhancedCode{}, text, false
		}
		enh[i] = n
	}
	if enh[0] < 2 || enh[0] > 5 {
		return smtp.EnhancedCode{}, text, false
	}
	return enh, rest, true
}
