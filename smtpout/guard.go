package smtpout

import (
	"context"
	"net"
	"sync"
	"time"
)

// aLongTimeAgo is a deadline that has passed: setting it aborts pending I/O.
var aLongTimeAgo = time.Unix(1, 0)

// guardedConn lets the context of the Send currently using a connection
// govern it, although go-smtp sets deadlines on the same connection: the
// client sets its own deadline around each command and clears it afterwards,
// which would otherwise erase ours. Every deadline passing through here is
// capped at the context's deadline, and once the context ends every
// deadline is in the past, so no later call can lift it.
type guardedConn struct {
	net.Conn

	mu      sync.Mutex
	ceiling time.Time // deadline of the bound context; zero when none
	expired bool      // the bound context ended while bound
	stop    func() bool
}

func newGuardedConn(c net.Conn) *guardedConn { return &guardedConn{Conn: c} }

// bind puts the connection under ctx until unbind.
func (g *guardedConn) bind(ctx context.Context) {
	g.mu.Lock()
	g.ceiling, _ = ctx.Deadline()
	g.expired = false
	g.mu.Unlock()
	g.stop = context.AfterFunc(ctx, g.expire)
}

// unbind detaches the context. It reports whether the connection is still
// fit for reuse: a context that ended while bound may have cut a command
// short and left the session in an unknown state.
func (g *guardedConn) unbind() bool {
	stopped := g.stop == nil || g.stop()
	g.stop = nil
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ceiling = time.Time{}
	return stopped && !g.expired
}

func (g *guardedConn) expire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expired = true
	g.Conn.SetDeadline(aLongTimeAgo)
}

func (g *guardedConn) clamp(t time.Time) time.Time {
	if g.expired {
		return aLongTimeAgo
	}
	if !g.ceiling.IsZero() && (t.IsZero() || t.After(g.ceiling)) {
		return g.ceiling
	}
	return t
}

func (g *guardedConn) SetDeadline(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.Conn.SetDeadline(g.clamp(t))
}

func (g *guardedConn) SetReadDeadline(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.Conn.SetReadDeadline(g.clamp(t))
}

func (g *guardedConn) SetWriteDeadline(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.Conn.SetWriteDeadline(g.clamp(t))
}

// within sets a deadline d from now (still capped by the context).
func (g *guardedConn) within(d time.Duration) {
	g.SetDeadline(time.Now().Add(d))
}
