package smtpout

import (
	"context"
	"crypto/tls"
	"net"
	"net/netip"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/heraldmail/herald/resolver"
)

// noDNS fails the test if relay mode looks anything up.
type noDNS struct{ t *testing.T }

func (n noDNS) MX(context.Context, string) ([]resolver.MX, error) {
	n.t.Error("MX lookup in relay mode")
	return nil, resolver.ErrNotFound
}

func (n noDNS) IPs(context.Context, string) ([]netip.Addr, error) {
	n.t.Error("address lookup in relay mode")
	return nil, resolver.ErrNotFound
}

func relaySender(t *testing.T, d Dialer, cfg Config) *Sender {
	cfg.Hostname = "herald.test"
	if d == nil {
		d = &net.Dialer{}
	}
	s := New(cfg, noDNS{t}, d, testLogger(t))
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRelayAuthPlainOverSTARTTLS(t *testing.T) {
	cert, roots := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert), withAuth("herald", "s3cret", sasl.Plain, sasl.Login))
	s := relaySender(t, nil, Config{
		Relay: sk.addr, RelayUsername: "herald", RelayPassword: "s3cret",
		TLSConfig: &tls.Config{RootCAs: roots},
	})
	for range 2 {
		r := send(t, s, signedMessage("a@example.test", "b@elsewhere.test"))
		wantDelivered(t, r[0], "127.0.0.1")
		wantDelivered(t, r[1], "127.0.0.1")
	}
	msgs := sk.messages()
	if len(msgs) != 2 || msgs[0].user != "herald" || !allTLS(msgs) {
		t.Fatalf("received %+v", msgs)
	}
	if n := sk.accepts.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
}

func allTLS(msgs []received) bool {
	for _, m := range msgs {
		if !m.tls {
			return false
		}
	}
	return true
}

func TestRelayAuthLoginOnly(t *testing.T) {
	cert, roots := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert), withAuth("herald", "s3cret", sasl.Login))
	s := relaySender(t, nil, Config{
		Relay: sk.addr, RelayUsername: "herald", RelayPassword: "s3cret",
		TLSConfig: &tls.Config{RootCAs: roots},
	})
	wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "127.0.0.1")
	if msgs := sk.messages(); msgs[0].user != "herald" {
		t.Fatalf("received %+v", msgs)
	}
}

func TestRelayImplicitTLS(t *testing.T) {
	cert, roots := selfSigned(t)
	sk := startSink(t, "", 0, func(s *sink) {
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
		s.ln = func(l net.Listener) net.Listener { return tls.NewListener(l, cfg) }
	})
	s := relaySender(t, nil, Config{Relay: sk.addr, RelayImplicitTLS: true, TLSConfig: &tls.Config{RootCAs: roots}})
	r := send(t, s, signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "127.0.0.1")
	if !r.TLS || !sk.messages()[0].tls {
		t.Fatalf("%+v", r)
	}
}

func TestRelayUnverifiedCertificateRefused(t *testing.T) {
	cert, _ := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert), withAuth("herald", "s3cret", sasl.Plain))
	s := relaySender(t, nil, Config{Relay: sk.addr, RelayUsername: "herald", RelayPassword: "s3cret"})
	wantFailed(t, send(t, s, signedMessage("a@example.test"))[0], true, 0, "4.4.2")
	if len(sk.messages()) != 0 {
		t.Fatal("sent through a relay whose certificate did not verify")
	}
}

func TestRelayAuthFailureIsTemporary(t *testing.T) {
	cert, roots := selfSigned(t)
	sk := startSink(t, "", 0, withTLS(cert), withAuth("herald", "s3cret", sasl.Plain))
	s := relaySender(t, nil, Config{
		Relay: sk.addr, RelayUsername: "herald", RelayPassword: "wrong",
		TLSConfig: &tls.Config{RootCAs: roots},
	})
	wantFailed(t, send(t, s, signedMessage("a@example.test"))[0], true, 535, "5.7.8")
}

// remoteAs dials for real but reports another remote address, to make a
// loopback relay look remote.
type remoteAs struct{ addr net.Addr }

func (r remoteAs) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &fakeRemote{Conn: c, remote: r.addr}, nil
}

type fakeRemote struct {
	net.Conn
	remote net.Addr
}

func (f *fakeRemote) RemoteAddr() net.Addr { return f.remote }

func TestRelayCredentialsNeverInPlainText(t *testing.T) {
	sk := startSink(t, "", 0, withAuth("herald", "s3cret", sasl.Plain), func(s *sink) { s.srv.AllowInsecureAuth = true })
	cfg := Config{Relay: sk.addr, RelayUsername: "herald", RelayPassword: "s3cret"}

	remote := remoteAs{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 25), Port: 587}}
	r := send(t, relaySender(t, remote, cfg), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 0, "4.7.0")
	if len(sk.messages()) != 0 {
		t.Fatal("credentials sent in plain text to a remote relay")
	}

	// On loopback nobody can listen in, so plain text is allowed.
	wantDelivered(t, send(t, relaySender(t, nil, cfg), signedMessage("a@example.test"))[0], "127.0.0.1")
	if msgs := sk.messages(); len(msgs) != 1 || msgs[0].user != "herald" || msgs[0].tls {
		t.Fatalf("received %+v", msgs)
	}
}
