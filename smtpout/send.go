package smtpout

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Send makes one delivery attempt of m and returns one Result per
// recipient, in the order of m.To. It has no error return: DNS trouble,
// unreachable hosts and a cancelled ctx are temporary Results, so that the
// caller decides about retries per recipient from one place.
//
// Hosts are tried in MX order, and each host's addresses in turn, until
// every recipient has an answer from a server. Connection-level failures
// (connect, banner, TLS, a session lost before DATA) move on to the next
// address; replies to MAIL, RCPT and DATA are final for this attempt.
func (s *Sender) Send(ctx context.Context, m Message) []Result {
	d := newDelivery(m)
	if d.done() {
		return d.results
	}
	if s.pool.isClosed() {
		d.settleAll(d.pending(), temporary("4.3.2", "smtpout: sender is closed"))
		return d.results
	}
	release, err := s.limits.acquire(ctx, d.domain)
	if err != nil {
		d.settleAll(d.pending(), temporary("4.4.5", "waiting for a connection slot to "+d.domain+": "+err.Error()))
		return d.results
	}
	defer release()
	targets, fail := s.route(ctx, d.domain)
	if fail != nil {
		d.settleAll(d.pending(), *fail)
		return d.results
	}
	for _, t := range targets {
		if d.done() || ctx.Err() != nil {
			break
		}
		s.tryTarget(ctx, d, t)
	}
	if err := ctx.Err(); err != nil && !d.done() {
		d.hostFailed(d.last.MXHost, &localError{enh: "4.4.7", msg: "delivery attempt ended", err: err})
	}
	return d.finish()
}

// tryTarget delivers what is still pending through one host: over idle
// pooled sessions first, then over fresh connections to each address.
func (s *Sender) tryTarget(ctx context.Context, d *delivery, t target) {
	s.tryPooled(ctx, d, t)
	if d.done() {
		return
	}
	addrs, err := s.addrs(ctx, t)
	if err != nil {
		s.addrsFailed(d, t, err)
		return
	}
	for _, a := range addrs {
		if d.done() || ctx.Err() != nil {
			return
		}
		c, err := s.connect(ctx, t, a, d.msg.RequireTLS)
		if err != nil {
			s.log.Debug("smtpout: connect failed", "domain", d.domain, "mx", t.host, "addr", a, "err", err)
			d.hostFailed(t.host, err)
			continue
		}
		s.run(ctx, d, c)
	}
}

func (s *Sender) connect(ctx context.Context, t target, addr string, requireTLS bool) (*conn, error) {
	if t.relay {
		return s.connectRelay(ctx, t, addr, requireTLS)
	}
	return s.connectMX(ctx, t, addr, requireTLS)
}

// tryPooled runs the transaction over idle sessions to t. A session found
// dead before the server said anything about this message was most likely
// closed by the peer while idle, which is normal and not the host's fault:
// it is dropped and the next idle session, or a fresh connection, is used.
func (s *Sender) tryPooled(ctx context.Context, d *delivery, t target) {
	for !d.done() && ctx.Err() == nil {
		c, stale := s.pool.take(t.key(), d.msg.RequireTLS, time.Now())
		for _, sc := range stale {
			sc.close()
		}
		if c == nil || s.run(ctx, d, c) {
			return
		}
	}
}

// run performs one transaction on c and then pools or closes c. It reports
// false when c was a reused session that had died before this message.
func (s *Sender) run(ctx context.Context, d *delivery, c *conn) bool {
	start := time.Now()
	c.g.bind(ctx)
	out := s.transact(d, c)
	fit := c.g.unbind() && out.err == nil
	if out.err != nil && out.first && c.reused && ctx.Err() == nil {
		s.log.Debug("smtpout: idle connection was dead", "mx", c.host, "err", out.err)
		c.close()
		return false
	}
	s.log.Debug("smtpout: attempt", "domain", d.domain, "mx", c.host, "tls", c.tls, "reused", c.reused,
		"code", out.code, "err", out.err, "took", time.Since(start))
	if out.err != nil {
		d.hostFailed(c.host, out.err)
		d.last.TLS = c.tls
	}
	switch {
	case !fit:
		c.close()
	case !s.pool.put(c, time.Now()):
		c.quit(s.quitTimeout())
	}
	return true
}

// delivery is the state of one Send: the verdict per recipient so far.
type delivery struct {
	msg     Message
	domain  string
	results []Result
	settled []bool
	left    int
	last    Result // the latest connection-level failure, for what stays pending
}

func newDelivery(m Message) *delivery {
	n := len(m.To)
	d := &delivery{msg: m, domain: destination(m), results: make([]Result, n), settled: make([]bool, n), left: n}
	for i, rcpt := range m.To {
		d.results[i].Recipient = rcpt
		if !validAddr(rcpt) || rcpt == "" {
			d.settle(i, permanent("5.1.3", "invalid recipient address"))
		}
	}
	if !validAddr(m.From) {
		d.settleAll(d.pending(), permanent("5.1.7", "invalid envelope sender address"))
	}
	return d
}

// destination is m.Domain, or the domain of the first recipient.
func destination(m Message) string {
	dom := m.Domain
	if dom == "" && len(m.To) > 0 {
		dom = m.To[0][strings.LastIndexByte(m.To[0], '@')+1:]
	}
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(dom)), ".")
}

// validAddr rejects what would corrupt the command line it is sent on.
func validAddr(a string) bool { return !strings.ContainsAny(a, "\r\n<>") }

func (d *delivery) done() bool { return d.left == 0 }

func (d *delivery) pending() []int {
	var out []int
	for i, ok := range d.settled {
		if !ok {
			out = append(out, i)
		}
	}
	return out
}

func (d *delivery) settle(i int, r Result) {
	if d.settled[i] {
		return
	}
	r.Recipient = d.msg.To[i]
	d.results[i], d.settled[i] = r, true
	d.left--
}

func (d *delivery) settleAll(idx []int, r Result) {
	for _, i := range idx {
		d.settle(i, r)
	}
}

// hostFailed records a connection-level failure. Whatever it was, even a 5xx
// banner, another host or a later attempt may succeed, so it is temporary.
func (d *delivery) hostFailed(host string, err error) {
	r := verdict(err)
	r.Temporary, r.MXHost = true, host
	var ar *authRefused
	r.RelayAuth = errors.As(err, &ar)
	d.last = r
}

// finish gives every recipient still pending the last failure, and returns
// the results.
func (d *delivery) finish() []Result {
	last := d.last
	if last.Message == "" {
		last = temporary("4.4.1", "no mail server for "+d.domain+" could be reached")
	}
	d.settleAll(d.pending(), last)
	return d.results
}
