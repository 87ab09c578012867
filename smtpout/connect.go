package smtpout

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// rung is a step of the opportunistic TLS ladder, best first.
type rung int

const (
	rungVerified   rung = iota // STARTTLS with certificate verification
	rungUnverified             // STARTTLS accepting any certificate: still encrypted
	rungPlain                  // no TLS
)

func (r rung) String() string {
	return [...]string{"verified", "unverified", "plain"}[r]
}

// conn is an SMTP session ready for a transaction.
type conn struct {
	c         *smtp.Client
	g         *guardedConn
	under     *underClient // the session below the Client, for BDAT
	key       string       // pool key: host:port
	host      string       // MX or relay host name, for results and logs
	helloName string
	tls       bool
	rung      rung
	reused    bool
	idleSince time.Time
}

// close drops the connection without QUIT: used when its state is unknown.
func (c *conn) close() { c.c.Close() }

// quit says goodbye politely, within timeout.
func (c *conn) quit(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c.g.bind(ctx)
	c.c.Quit()
	c.g.unbind()
	c.c.Close()
}

// plan says how to open one connection.
type plan struct {
	rung       rung
	implicit   bool // TLS from the first byte (relay on port 465)
	allowPlain bool // continue in plain text when STARTTLS is not offered
}

var errNoSTARTTLS = &localError{enh: "4.7.10", msg: "host does not offer STARTTLS and the message requires TLS"}

// connectMX opens a session to one MX address, walking down the TLS ladder
// from the rung that last worked for this host: a certificate that fails
// verification is retried unverified, a failed STARTTLS is retried in plain
// text. Each retry needs a new connection because a failed handshake leaves
// the session unusable.
func (s *Sender) connectMX(ctx context.Context, t target, addr string, requireTLS bool) (*conn, error) {
	r := s.memo.get(t.key(), s.cfg.Now())
	if requireTLS && r == rungPlain {
		r = rungVerified
	}
	for {
		c, err := s.open(ctx, t, addr, plan{rung: r, allowPlain: !requireTLS})
		if err == nil {
			s.memo.put(t.key(), c.rung, s.cfg.Now())
			return c, nil
		}
		next, ok := stepDown(r, err)
		if !ok || (next == rungPlain && requireTLS) {
			return nil, err
		}
		s.log.Debug("smtpout: TLS fallback", "mx", t.host, "addr", addr, "from", r.String(), "to", next.String(), "err", err)
		r = next
	}
}

func stepDown(r rung, err error) (rung, bool) {
	var te *tlsError
	if !errors.As(err, &te) || r == rungPlain {
		return r, false
	}
	if r == rungVerified && verificationFailed(err) {
		return rungUnverified, true
	}
	return rungPlain, true
}

// connectRelay opens an authenticated session to the smarthost. There is no
// ladder here: the relay is chosen by the operator and receives our
// credentials, so its certificate must verify.
func (s *Sender) connectRelay(ctx context.Context, t target, addr string, requireTLS bool) (*conn, error) {
	return s.open(ctx, t, addr, plan{rung: rungVerified, implicit: s.cfg.RelayImplicitTLS, allowPlain: !requireTLS})
}

// open dials addr and sets up a session according to p, under ctx.
func (s *Sender) open(ctx context.Context, t target, addr string, p plan) (*conn, error) {
	raw, err := s.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	g := newGuardedConn(raw)
	g.bind(ctx)
	c, err := s.session(g, t, p)
	if !g.unbind() && err == nil {
		c.close()
		err = ctx.Err()
	}
	if err != nil {
		g.Close()
		return nil, err
	}
	return c, nil
}

func (s *Sender) dial(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeouts.Connect)
	defer cancel()
	c, err := s.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &localError{enh: "4.4.1", msg: "connect to " + addr, err: err}
	}
	return c, nil
}

// session performs the opening of a session on g: implicit TLS or banner,
// EHLO and STARTTLS, then hands over to a go-smtp Client, which says EHLO
// (again, after TLS, as RFC 3207 requires) and, for a relay, AUTH.
func (s *Sender) session(g *guardedConn, t target, p plan) (*conn, error) {
	to := s.cfg.Timeouts
	var rw net.Conn = g
	secure := p.implicit
	if p.implicit {
		tc := tls.Client(g, s.tlsConfig(t.host, false))
		g.within(to.Command)
		if err := tc.Handshake(); err != nil {
			return nil, &tlsError{err: err}
		}
		rw = tc
	}
	pre := newPreamble(rw)
	if err := pre.greet(to.Greeting); err != nil {
		return nil, err
	}
	r := p.rung
	if !secure && r != rungPlain {
		offered, err := pre.ehlo(s.cfg.Hostname, to.Command)
		switch {
		case err != nil:
			return nil, err
		case offered:
			if err := pre.startTLS(s.tlsConfig(t.host, r == rungUnverified), to.Command); err != nil {
				return nil, err
			}
			secure = true
		case !p.allowPlain:
			return nil, errNoSTARTTLS
		default:
			r = rungPlain
		}
	}
	under := pre.handover()
	cl := smtp.NewClient(under.conn)
	cl.CommandTimeout, cl.SubmissionTimeout = to.Command, to.Data
	if err := cl.Hello(s.cfg.Hostname); err != nil {
		return nil, err
	}
	if t.relay {
		if err := s.authenticate(cl, g.RemoteAddr(), secure); err != nil {
			return nil, err
		}
	}
	return &conn{c: cl, g: g, under: under, key: t.key(), host: t.host, helloName: s.cfg.Hostname, tls: secure, rung: r}, nil
}

// tlsConfig derives the config for one host from the base config.
func (s *Sender) tlsConfig(serverName string, insecure bool) *tls.Config {
	cfg := &tls.Config{}
	if s.cfg.TLSConfig != nil {
		cfg = s.cfg.TLSConfig.Clone()
	}
	cfg.ServerName = serverName
	cfg.InsecureSkipVerify = insecure
	return cfg
}

// authenticate logs in to the relay when credentials are configured. It
// refuses to send them in plain text except to a relay on loopback, where
// nobody can listen in. A failure is the operator's to fix, never the
// recipient's, so the caller reports it as temporary.
func (s *Sender) authenticate(cl *smtp.Client, remote net.Addr, secure bool) error {
	user, pass := s.cfg.RelayUsername, s.cfg.RelayPassword
	if user == "" {
		return nil
	}
	if !secure && !isLoopback(remote) {
		return &localError{enh: "4.7.0", msg: "refusing to send relay credentials in plain text: the relay offers no TLS"}
	}
	var mech sasl.Client
	switch {
	case cl.SupportsAuth(sasl.Plain):
		mech = sasl.NewPlainClient("", user, pass)
	case cl.SupportsAuth(sasl.Login):
		mech = sasl.NewLoginClient(user, pass)
	default:
		return &localError{enh: "4.7.0", msg: "relay offers neither AUTH PLAIN nor AUTH LOGIN"}
	}
	if err := cl.Auth(mech); err != nil {
		err = fmt.Errorf("relay AUTH %s failed: %w", user, err)
		var se *smtp.SMTPError
		if errors.As(err, &se) && se.Code/100 == 5 {
			return &authRefused{err}
		}
		return err
	}
	return nil
}

// authRefused is a permanent refusal of the relay credentials.
type authRefused struct{ err error }

func (e *authRefused) Error() string { return e.err.Error() }
func (e *authRefused) Unwrap() error { return e.err }

func isLoopback(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().IsLoopback()
}
