package smtpout

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConnectionReused(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	e.mx("other.test", "mx1.example.test", "") // another domain on the same host
	s := e.sender(sk.port, nil)
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	wantDelivered(t, send(t, s, signedMessage("b@example.test"))[0], "mx1.example.test")
	m := signedMessage("c@other.test")
	m.Domain = "other.test"
	wantDelivered(t, send(t, s, m)[0], "mx1.example.test")
	if n := sk.accepts.Load(); n != 1 {
		t.Fatalf("%d connections for 3 messages, want 1", n)
	}
	if got := len(sk.messages()); got != 3 {
		t.Fatalf("%d messages received", got)
	}
}

// TestReusedAfterRefusal: a transaction refused at RCPT is reset, and the
// session stays reusable.
func TestReusedAfterRefusal(t *testing.T) {
	e := newEnv(t)
	var refuse atomic.Bool
	refuse.Store(true)
	sk := startSink(t, "", 0, func(s *sink) {
		s.rcpt = func(string) error {
			if refuse.Load() {
				return io.ErrUnexpectedEOF // go-smtp answers 451
			}
			return nil
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, nil)
	if r := send(t, s, signedMessage("a@example.test"))[0]; !r.Temporary {
		t.Fatalf("%+v", r)
	}
	refuse.Store(false)
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	if n := sk.accepts.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
}

func TestDeadPooledConnectionIsReplaced(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, nil)
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	sk.dropAll()
	waitIdleClosedByPeer(t, s) // the FIN has arrived: the session is dead in the pool
	wantDelivered(t, send(t, s, signedMessage("b@example.test"))[0], "mx1.example.test")
	if n := sk.accepts.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

// waitIdleClosedByPeer waits until the one idle pooled session reads EOF:
// its peer's close has reached this side. An idle SMTP session has no
// bytes pending, so the probe reads nothing the client would miss.
func waitIdleClosedByPeer(t *testing.T, s *Sender) {
	t.Helper()
	s.pool.mu.Lock()
	var idle []*conn
	for _, list := range s.pool.idle {
		idle = append(idle, list...)
	}
	s.pool.mu.Unlock()
	if len(idle) != 1 {
		t.Fatalf("%d idle sessions, want 1", len(idle))
	}
	nc := idle[0].g.Conn
	defer nc.SetReadDeadline(time.Time{})
	deadline := time.Now().Add(5 * time.Second)
	for {
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		var b [1]byte
		n, err := nc.Read(b[:])
		if n > 0 {
			t.Fatalf("an idle session had a byte pending: %q", b[:n])
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return // EOF or reset: the peer is gone
		}
		if time.Now().After(deadline) {
			t.Fatal("the peer's close never reached the idle session")
		}
	}
}

func TestIdleConnectionsExpire(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, func(c *Config) { c.IdleTimeout = 100 * time.Millisecond })
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	deadline := time.Now().Add(5 * time.Second)
	for s.pool.count() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.pool.count(); n != 0 {
		t.Fatalf("%d idle connections left after the idle timeout", n)
	}
}

func TestDomainConcurrencyBound(t *testing.T) {
	e := newEnv(t)
	var inData, peak atomic.Int32
	sk := startSink(t, "", 0, func(s *sink) {
		s.data = func(ss *session, r io.Reader) error {
			n := inData.Add(1)
			defer inData.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(100 * time.Millisecond)
			return ss.record(r)
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, func(c *Config) { c.MaxConnsPerDomain = 2 })
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			r := s.Send(context.Background(), signedMessage("a@example.test"))[0]
			if !r.Delivered {
				t.Errorf("%+v", r)
			}
		})
	}
	// Both slots are taken (two messages in DATA, the others waiting).
	for deadline := time.Now().Add(5 * time.Second); inData.Load() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d messages in DATA at once, want 2", inData.Load())
		}
		time.Sleep(time.Millisecond)
	}
	// A send that cannot get a slot in time gives up, temporarily.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if r := s.Send(ctx, signedMessage("late@example.test"))[0]; r.Delivered || !r.Temporary {
		t.Errorf("late send: %+v", r)
	}
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak concurrency %d, want 2", p)
	}
	if n := sk.accepts.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

func TestCloseQuitsIdleConnections(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, nil)
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	if s.pool.count() != 1 {
		t.Fatal("no idle connection")
	}
	s.Close()
	if s.pool.count() != 0 {
		t.Fatal("idle connection left after Close")
	}
	if r := send(t, s, signedMessage("a@example.test"))[0]; !r.Temporary {
		t.Fatalf("send after Close: %+v", r)
	}
}

// count is the number of idle sessions, for tests.
func (p *pool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, list := range p.idle {
		n += len(list)
	}
	return n
}
