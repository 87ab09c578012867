package smtpin_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/textproto"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/smtpin"
)

// The test project: its secret key and its one verified domain.
const (
	goodKey   = "sk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	publicKey = "pk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	verified  = "shop.example"
)

// submitter is a Submitter standing in for the application: it knows one
// key and one verified domain, prepares each recipient's copy with
// app/message as the application does (without DKIM), and keeps what it
// was given. A message whose subject is "over cap" is refused as over the
// billing cap; "FAIL" fails as the database would; the key "down" cannot
// be checked.
type submitter struct {
	mu  sync.Mutex
	got []submission
	ids int
}

// submission is one Submit call: the envelope, the bytes received and
// each recipient's prepared copy.
type submission struct {
	env      smtpin.Envelope
	raw      []byte
	prepared [][]byte
}

func (f *submitter) Authenticate(_ context.Context, key string) (smtpin.Sender, error) {
	switch key {
	case goodKey:
		return &sender{f: f}, nil
	case "down":
		return nil, errors.New("database down")
	}
	return nil, smtpin.ErrBadKey
}

func (f *submitter) submissions() []submission {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]submission(nil), f.got...)
}

type sender struct{ f *submitter }

func (s *sender) ProjectID() string { return "proj_test" }

func (s *sender) CheckSender(_ context.Context, address string) error {
	domain := strings.ToLower(address[strings.LastIndexByte(address, '@')+1:])
	if domain != verified {
		return &smtpin.Rejection{Reason: smtpin.RejectSenderDomain, Message: domain + " is not verified"}
	}
	return nil
}

func (s *sender) Submit(ctx context.Context, env smtpin.Envelope, raw []byte) ([]string, error) {
	msg, err := message.ParseSubmitted(raw)
	if err != nil {
		return nil, &smtpin.Rejection{Reason: smtpin.RejectMessage, Message: err.Error()}
	}
	for _, a := range msg.FromAll() {
		if err := s.CheckSender(ctx, a.Email); err != nil {
			return nil, err
		}
	}
	switch msg.Subject() {
	case "over cap":
		return nil, &smtpin.Rejection{Reason: smtpin.RejectBillingCap, Message: "Billing cap reached for transactional emails"}
	case "FAIL":
		return nil, errors.New("disk full")
	}
	sub := submission{env: env, raw: append([]byte(nil), raw...)}
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	var ids []string
	for range env.To {
		out, err := msg.Prepare(message.SubmitOptions{})
		if err != nil {
			return nil, err
		}
		sub.prepared = append(sub.prepared, out)
		s.f.ids++
		ids = append(ids, fmt.Sprintf("em_%d", s.f.ids))
	}
	s.f.got = append(s.f.got, sub)
	return ids, nil
}

// failures is the shared per-address count of wrong keys (the API's, in
// the application), without windows: a test lasts less than one.
type failures struct {
	mu sync.Mutex
	n  map[string]int
}

func (f *failures) Blocked(ip string, limit int) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[ip] >= limit, 42 * time.Second
}

func (f *failures) Count(ip string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[ip]++
}

// listener is a running submission listener: its STARTTLS and implicit
// TLS addresses.
type listener struct {
	sub       *submitter
	failures  *failures
	plain, tl string
}

func startSubmission(t *testing.T, cfg smtpin.SubmissionConfig) *listener {
	t.Helper()
	cert, err := smtpin.LoadOrCreateCertificate(filepath.Join(t.TempDir(), smtpin.SelfSignedFile), "smtp.herald.test")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{sub: &submitter{}, failures: &failures{n: map[string]int{}}}
	cfg.Hostname = "smtp.herald.test"
	cfg.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	cfg.KeyFailures = l.failures
	srv, err := smtpin.NewSubmission(cfg, l.sub, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var serving sync.WaitGroup
	for _, serve := range []struct {
		addr *string
		fn   func(net.Listener) error
	}{{&l.plain, srv.Serve}, {&l.tl, srv.ServeTLS}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		*serve.addr = ln.Addr().String()
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := serve.fn(ln); err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		serving.Wait()
	})
	return l
}

var clientTLS = &tls.Config{InsecureSkipVerify: true} // the self-signed certificate

// login dials the STARTTLS port, starts TLS and authenticates.
func (l *listener) login(t *testing.T) *smtp.Client {
	t.Helper()
	c, err := smtp.DialStartTLS(l.plain, clientTLS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Auth(sasl.NewPlainClient("", "herald", goodKey)); err != nil {
		t.Fatal(err)
	}
	return c
}

// submit runs one transaction and returns the text of the final reply.
func submit(c *smtp.Client, from string, to []string, msg string) (string, error) {
	if err := c.Mail(from, nil); err != nil {
		return "", err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return "", err
		}
	}
	w, err := c.Data()
	if err != nil {
		return "", err
	}
	if _, err := w.Write([]byte(msg)); err != nil {
		return "", err
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return "", err
	}
	return resp.StatusText, nil
}

// reply is what an SMTP error says: "550 5.7.1" and its text.
func reply(err error) (code string, text string) {
	var e *smtp.SMTPError
	if !errors.As(err, &e) {
		return fmt.Sprint(err), ""
	}
	c := e.EnhancedCode
	return fmt.Sprintf("%d %d.%d.%d", e.Code, c[0], c[1], c[2]), e.Message
}

// rawConn speaks SMTP line by line, to see every reply as it is.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	tp   *textproto.Conn
}

func dialRaw(t *testing.T, addr string, implicitTLS bool) *rawConn {
	t.Helper()
	var conn net.Conn
	var err error
	if implicitTLS {
		conn, err = tls.Dial("tcp", addr, clientTLS)
	} else {
		conn, err = net.Dial("tcp", addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	return &rawConn{t: t, conn: conn, tp: textproto.NewConn(conn)}
}

// read returns the next reply: its code and text (lines joined by "\n").
func (r *rawConn) read() (int, string, error) {
	return r.tp.ReadResponse(0)
}

// cmd sends a line and returns the reply as "code text".
func (r *rawConn) cmd(line string) string {
	r.t.Helper()
	if err := r.tp.PrintfLine("%s", line); err != nil {
		r.t.Fatalf("send %q: %v", line, err)
	}
	code, msg, err := r.read()
	if err != nil && code == 0 {
		r.t.Fatalf("reply to %q: %v", line, err)
	}
	return fmt.Sprintf("%d %s", code, msg)
}

// startTLS greets, upgrades the connection and greets again.
func (r *rawConn) startTLS() {
	r.t.Helper()
	if _, _, err := r.read(); err != nil {
		r.t.Fatal(err)
	}
	r.cmd("EHLO client.test")
	if got := r.cmd("STARTTLS"); !strings.HasPrefix(got, "220 ") {
		r.t.Fatalf("STARTTLS: %s", got)
	}
	tc := tls.Client(r.conn, clientTLS)
	if err := tc.Handshake(); err != nil {
		r.t.Fatal(err)
	}
	r.conn, r.tp = tc, textproto.NewConn(tc)
	r.cmd("EHLO client.test")
}

func plainAuth(key string) string {
	return "AUTH PLAIN " + base64.StdEncoding.EncodeToString([]byte("\x00herald\x00"+key))
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func (f *failures) count(ip string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[ip]
}
