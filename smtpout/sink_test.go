package smtpout

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// sink is a real go-smtp server on loopback that records what it receives.
// Behaviour hooks are set through options before it starts serving.
type sink struct {
	addr string
	port int
	srv  *smtp.Server

	accepts atomic.Int64 // TCP connections accepted

	rcpt  func(to string) error                // nil accepts everyone
	data  func(ss *session, r io.Reader) error // nil records the message
	creds map[string]string                    // user → password; enables AUTH
	mechs []string                             // AUTH mechanisms offered
	ln    func(net.Listener) net.Listener      // wraps the listener (implicit TLS)
	mu    sync.Mutex                           // guards the fields below
	msgs  []received
	conns []*smtp.Conn
}

type received struct {
	from string
	to   []string
	data []byte
	tls  bool
	user string
	helo string
}

type sinkOpt func(*sink)

// withTLS offers STARTTLS with cert.
func withTLS(cert tls.Certificate) sinkOpt {
	return func(s *sink) { s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}} }
}

// transcript is what a sink's server read from its clients.
type transcript struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *transcript) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// withTranscript records what the server reads into t.
func withTranscript(t *transcript) sinkOpt {
	return func(s *sink) {
		s.ln = func(l net.Listener) net.Listener { return &teeListener{Listener: l, t: t} }
	}
}

type teeListener struct {
	net.Listener
	t *transcript
}

func (l *teeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &teeConn{Conn: c, t: l.t}, nil
}

type teeConn struct {
	net.Conn
	t *transcript
}

func (c *teeConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.t.mu.Lock()
	c.t.b.Write(b[:n])
	c.t.mu.Unlock()
	return n, err
}

func withAuth(user, pass string, mechs ...string) sinkOpt {
	return func(s *sink) { s.creds, s.mechs = map[string]string{user: pass}, mechs }
}

// startSink serves on ip (default 127.0.0.1) and a free port, or on port
// when it is not 0.
func startSink(t testing.TB, ip string, port int, opts ...sinkOpt) *sink {
	t.Helper()
	if ip == "" {
		ip = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port}
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "sink.example.test"
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	for _, o := range opts {
		o(s)
	}
	counting := &countingListener{Listener: ln, n: &s.accepts}
	var l net.Listener = counting
	if s.ln != nil {
		l = s.ln(l)
	}
	go s.srv.Serve(l)
	t.Cleanup(func() {
		// go-smtp's Close resets a connection's BDAT pipe without the lock
		// its BDAT handler reads it under: a data race when a test ends
		// mid-chunk. Closing the network connections ends the handlers
		// instead, and Shutdown waits for them.
		// A handler still busy after half a second (a stalled server's
		// sleep) is left to end on its own; Close then touches no
		// connection.
		counting.closeAll()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if s.srv.Shutdown(ctx) != nil {
			s.srv.Close()
		}
	})
	return s
}

func (s *sink) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	return &session{s: s, c: c}, nil
}

func (s *sink) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.msgs...)
}

// dropAll closes every connection from the server side, as a server that
// times idle clients out would.
func (s *sink) dropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Conn().Close()
	}
}

type session struct {
	s    *sink
	c    *smtp.Conn
	from string
	to   []string
	user string
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.s.rcpt != nil {
		if err := ss.s.rcpt(to); err != nil {
			return err
		}
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	if ss.s.data != nil {
		return ss.s.data(ss, r)
	}
	return ss.record(r)
}

func (ss *session) record(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := ss.c.TLSConnectionState()
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	ss.s.msgs = append(ss.s.msgs, received{from: ss.from, to: ss.to, data: b, tls: isTLS, user: ss.user, helo: ss.c.Hostname()})
	return nil
}

func (ss *session) AuthMechanisms() []string { return ss.s.mechs }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	check := func(user, pass string) error {
		if want, ok := ss.s.creds[user]; !ok || want != pass {
			return smtp.ErrAuthFailed
		}
		ss.user = user
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

// loginServer is the server side of AUTH LOGIN, which go-sasl lacks, with
// the username sent as initial response as go-sasl's client does.
type loginServer struct {
	user  string
	step  int
	check func(user, pass string) error
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	l.step++
	switch l.step {
	case 1:
		l.user = string(resp)
		return []byte("Password:"), false, nil
	case 2:
		return nil, true, l.check(l.user, string(resp))
	}
	return nil, false, errors.New("unexpected LOGIN step")
}

// countingListener counts the connections it accepts and keeps them, so
// that the sink's cleanup can close them.
type countingListener struct {
	net.Listener
	n *atomic.Int64

	mu    sync.Mutex
	conns []net.Conn
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// closeAll closes every accepted connection.
func (l *countingListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// selfSigned returns a certificate for *.example.test and 127.0.0.1, and a
// pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "herald test"},
		DNSNames:              []string{"*.example.test", "example.test"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
