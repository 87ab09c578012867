package smtpout

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestFirstMXDownSecondUp(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	// Nothing listens on 127.0.0.2 at the sink's port: connection refused.
	e.mx("example.test", "mx1.example.test", "127.0.0.2", "mx2.example.test", "127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "mx2.example.test")
}

// TestBadFirstMX covers first MX hosts that accept but misbehave: the
// attempt moves on within the greeting timeout.
func TestBadFirstMX(t *testing.T) {
	cases := map[string]func(net.Conn){
		"silent":     func(c net.Conn) { time.Sleep(3 * time.Second); c.Close() },
		"421 banner": func(c net.Conn) { io.WriteString(c, "421 4.3.2 busy\r\n"); c.Close() },
		"hang up":    func(c net.Conn) { c.Close() },
	}
	for name, serve := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			sk := startSink(t, "", 0)
			bad := listenRaw(t, "127.0.0.2", sk.port, serve)
			e.mx("example.test", "mx1.example.test", bad, "mx2.example.test", "127.0.0.1")
			s := e.sender(sk.port, func(c *Config) { c.Timeouts.Greeting = 300 * time.Millisecond })
			start := time.Now()
			wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx2.example.test")
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestAllMXDownIsTemporary(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.2", "mx2.example.test", "127.0.0.3")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 0, "4.4.1")
	if r.MXHost != "mx2.example.test" {
		t.Fatalf("last host %q", r.MXHost)
	}
}

func TestNullMXIsPermanent(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.dns.Add(t, "example.test. 300 IN MX 0 .", "example.test. 300 IN A 127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, false, 0, "5.1.10")
	if !strings.Contains(r.Message, "null MX") || sk.accepts.Load() != 0 {
		t.Fatalf("%+v, %d connections", r, sk.accepts.Load())
	}
}

func TestNoMXFallsBackToAddress(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.dns.Add(t, "example.test. 300 IN A 127.0.0.1")
	wantDelivered(t, send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0], "example.test")
}

func TestNoMXNoAddressIsPermanent(t *testing.T) {
	e := newEnv(t)
	e.dns.Add(t, "example.test. 300 IN TXT \"v=spf1 -all\"")
	wantFailed(t, send(t, e.sender(25, nil), signedMessage("a@example.test"))[0], false, 0, "5.1.2")
}

func TestDNSServfailIsTemporary(t *testing.T) {
	e := newEnv(t)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	e.dns.SetRcode("example.test", dns.RcodeServerFailure)
	r := send(t, e.sender(25, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 0, "4.4.3")
}

func TestMXAnswersCached(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	e.dns.SetRcode("example.test", dns.RcodeServerFailure)
	cr := &countingResolver{Resolver: e.res}
	s := New(Config{Hostname: "herald.test", Port: sk.port}, cr, &net.Dialer{}, testLogger(t))
	defer s.Close()
	wantFailed(t, send(t, s, signedMessage("a@example.test"))[0], true, 0, "4.4.3")
	e.dns.SetRcode("example.test", dns.RcodeSuccess) // a failure is not cached
	for range 3 {
		wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	}
	if n := cr.mx.Load(); n != 2 {
		t.Fatalf("%d MX queries, want 2", n)
	}
}
