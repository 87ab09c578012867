package smtpout

import (
	"crypto/tls"
	"testing"
	"time"
)

func TestSTARTTLSSelfSignedFallsBackToUnverified(t *testing.T) {
	e := newEnv(t)
	cert, _ := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert))
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, nil)
	r := send(t, s, signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "mx1.example.test")
	if !r.TLS || !sk.messages()[0].tls {
		t.Fatalf("want unverified TLS, got %+v", r)
	}
	if n := sk.accepts.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (verified attempt, then unverified)", n)
	}
	// With the idle session gone, the remembered rung saves the failed
	// verified attempt.
	s.quitAll(s.pool.sweep(time.Now().Add(time.Hour)))
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx1.example.test")
	if n := sk.accepts.Load(); n != 3 {
		t.Fatalf("%d connections, want 3", n)
	}
}

func TestSTARTTLSVerifiedWithRootCAs(t *testing.T) {
	e := newEnv(t)
	cert, roots := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert))
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, func(c *Config) { c.TLSConfig = &tls.Config{RootCAs: roots} })
	m := signedMessage("a@example.test")
	m.RequireTLS = true
	r := send(t, s, m)[0]
	wantDelivered(t, r, "mx1.example.test")
	if !r.TLS || sk.accepts.Load() != 1 {
		t.Fatalf("want verified TLS on one connection, got %+v and %d", r, sk.accepts.Load())
	}
	if got := s.memo.get("mx1.example.test:"+itoa(sk.port), time.Now()); got != rungVerified {
		t.Fatalf("remembered rung %v", got)
	}
}

func TestPlainWhenNoSTARTTLS(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "mx1.example.test")
	if r.TLS || sk.accepts.Load() != 1 {
		t.Fatalf("want plain text on the same connection, got %+v and %d connections", r, sk.accepts.Load())
	}
}

func TestRequireTLSRefusesPlain(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	m := signedMessage("a@example.test")
	m.RequireTLS = true
	r := send(t, e.sender(sk.port, nil), m)[0]
	wantFailed(t, r, true, 0, "4.7.10")
	if len(sk.messages()) != 0 {
		t.Fatal("message sent in plain text")
	}
}

// TestBrokenSTARTTLSFallsBackToPlain: the server offers STARTTLS but no
// handshake can succeed (no common TLS version), so the message goes in plain
// text over a new connection.
func TestBrokenSTARTTLSFallsBackToPlain(t *testing.T) {
	e := newEnv(t)
	cert, _ := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert), func(s *sink) { s.srv.TLSConfig.MinVersion = tls.VersionTLS13 })
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, func(c *Config) { c.TLSConfig = &tls.Config{MaxVersion: tls.VersionTLS12} })
	r := send(t, s, signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "mx1.example.test")
	if r.TLS || sk.accepts.Load() != 2 {
		t.Fatalf("want plain text on a second connection, got %+v and %d connections", r, sk.accepts.Load())
	}
	if got := s.memo.get("mx1.example.test:"+itoa(sk.port), time.Now()); got != rungPlain {
		t.Fatalf("remembered rung %v", got)
	}
}
