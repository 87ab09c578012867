package smtpout

import (
	"sync"
	"testing"
	"time"
)

// fakeNow is a clock the test moves.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeNow) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeNow) add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// A host whose certificate does not verify costs the failed verified
// connection once an hour, not once a message: the working rung is
// remembered for an hour of the injected clock.
func TestTLSModeRememberedForAnHourOnTheClock(t *testing.T) {
	e := newEnv(t)
	cert, _ := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert))
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := e.sender(sk.port, func(c *Config) { c.Now = clock.now; c.MaxIdlePerHost = -1 })
	sendOne := func() {
		t.Helper()
		s.quitAll(s.pool.sweep(time.Now().Add(24 * time.Hour))) // no reuse: each send connects
		wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	}
	sendOne()
	if n := sk.accepts.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (verified attempt, then unverified)", n)
	}
	clock.add(59 * time.Minute)
	sendOne()
	if n := sk.accepts.Load(); n != 3 {
		t.Fatalf("%d connections after 59 minutes, want 3 (the unverified rung remembered)", n)
	}
	clock.add(2 * time.Minute)
	sendOne()
	if n := sk.accepts.Load(); n != 5 {
		t.Fatalf("%d connections after an hour, want 5 (verified tried again)", n)
	}
}
