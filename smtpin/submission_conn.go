package smtpin

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// refusalTimeout bounds the time spent answering a refused connection
// (a TLS handshake on the implicit-TLS port, then one line).
const refusalTimeout = 10 * time.Second

// guardListener admits connections within the limits and refuses the
// others with a 421 before go-smtp sees them: an address blocked for
// wrong keys, one with too many connections open, or any when the server
// is full. With tls set (the implicit-TLS port) connections are wrapped
// in TLS, the refusal too.
type guardListener struct {
	net.Listener
	s   *Submission
	tls *tls.Config
}

func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := ClientKey(c.RemoteAddr())
		if reply := l.s.admit(ip); reply != "" {
			l.s.log.Debug("submission smtp: connection refused", "remote", c.RemoteAddr().String(), "reply", reply)
			l.s.conns.refuse(c, l.tls, reply)
			continue
		}
		g := &guardedConn{Conn: c, ip: ip, release: func() { l.s.leave(ip) }}
		if l.tls != nil {
			return tls.Server(g, l.tls), nil
		}
		return g, nil
	}
}

// admit counts a new connection from ip, or returns the reply refusing it.
func (s *Submission) admit(ip string) string {
	if blocked, retry := s.blocked(ip); blocked {
		return replyLine(tooManyFailures(retry))
	}
	t := &s.conns
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.total >= s.cfg.MaxConnections:
		return "421 4.3.2 Too many connections, try again later"
	case t.perIP[ip] >= s.cfg.MaxConnectionsPerIP:
		return "421 4.7.0 Too many connections from your address, try again later"
	}
	t.total++
	t.perIP[ip]++
	return ""
}

// leave uncounts a connection from ip.
func (s *Submission) leave(ip string) {
	t := &s.conns
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total--
	if t.perIP[ip]--; t.perIP[ip] <= 0 {
		delete(t.perIP, ip)
	}
}

// refuse answers reply on c and closes it, in the background so that
// accepting goes on. Past 64 refusals under way, c is closed without a
// word: a flood gets no goroutine per connection.
func (t *connTable) refuse(c net.Conn, tlsConfig *tls.Config, reply string) {
	select {
	case t.refusals <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-t.refusals }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refusalTimeout))
		w := c
		if tlsConfig != nil {
			tc := tls.Server(c, tlsConfig)
			if tc.Handshake() != nil {
				return
			}
			w = tc
		}
		_, _ = fmt.Fprintf(w, "%s\r\n", reply)
	}()
}

// guardedConn is an admitted connection: closing it uncounts it, and it
// can be told to close right after the next reply is written (the 421
// that ends a session).
type guardedConn struct {
	net.Conn
	ip              string
	release         func()
	once            sync.Once
	closeAfterWrite atomic.Bool
}

func (g *guardedConn) Write(p []byte) (int, error) {
	n, err := g.Conn.Write(p)
	if g.closeAfterWrite.Load() {
		g.Close()
	}
	return n, err
}

func (g *guardedConn) Close() error {
	err := g.Conn.Close()
	g.once.Do(g.release)
	return err
}

// guardOf finds the guardedConn under a session's connection.
func guardOf(c net.Conn) *guardedConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	g, _ := c.(*guardedConn)
	return g
}

// ClientKey is the key of the per-address limits: the address of the
// client, an IPv6 address by its /64 (one host usually holds a whole
// /64), as the HTTP API keys its own per-IP limits.
func ClientKey(addr net.Addr) string {
	s := addr.String()
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = s
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
