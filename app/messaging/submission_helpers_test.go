package messaging_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	msgauth "github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/smtpin"
	"github.com/heraldmail/herald/smtpout/smtptest"
)

// The sending domain every test project verifies, and the recipients'.
const (
	shopDomain = "shop.example"
	rcptDomain = "example.net"
)

// subEnv is a whole app (apptest: database, workers, DNS server, SMTP sink
// as every recipient's MX) with the submission listener in front of it on
// loopback, its STARTTLS and implicit-TLS ports.
type subEnv struct {
	*apptest.Env
	plain, implicit string
	failures        *keyFailures
}

func startSubmission(t *testing.T) *subEnv {
	t.Helper()
	e := &subEnv{Env: apptest.New(t, apptest.Options{}), failures: &keyFailures{n: map[string]int{}}}
	e.VerifiedDomain(shopDomain)
	e.RouteMail(rcptDomain)
	cert, err := smtpin.LoadOrCreateCertificate(filepath.Join(t.TempDir(), smtpin.SelfSignedFile), "smtp.herald.test")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := smtpin.NewSubmission(smtpin.SubmissionConfig{Hostname: "smtp.herald.test",
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, KeyFailures: e.failures},
		e.App.Messaging.Submitter(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var serving sync.WaitGroup
	for _, l := range []struct {
		addr  *string
		serve func(net.Listener) error
	}{{&e.plain, srv.Serve}, {&e.implicit, srv.ServeTLS}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		*l.addr = ln.Addr().String()
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := l.serve(ln); err != nil {
				t.Errorf("serve: %v", err)
			}
		}()
	}
	t.Cleanup(func() { // before apptest's: the app outlives the listener
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		serving.Wait()
	})
	return e
}

// keyFailures counts wrong keys per address without windows (a test lasts
// less than one); web's counter is tried end to end in e2e/.
type keyFailures struct {
	mu sync.Mutex
	n  map[string]int
}

func (f *keyFailures) Blocked(ip string, limit int) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[ip] >= limit, time.Minute
}

func (f *keyFailures) Count(ip string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n[ip]++
}

var clientTLS = &tls.Config{InsecureSkipVerify: true} // the self-signed certificate

// login connects with STARTTLS and AUTH PLAIN, or over implicit TLS with
// AUTH LOGIN, with key as the password.
func (e *subEnv) login(t *testing.T, implicit bool, key string) (*smtp.Client, error) {
	t.Helper()
	var c *smtp.Client
	var err error
	auth := sasl.NewPlainClient("", "herald", key)
	if implicit {
		c, err = smtp.DialTLS(e.implicit, clientTLS)
		auth = sasl.NewLoginClient("herald", key)
	} else {
		c, err = smtp.DialStartTLS(e.plain, clientTLS)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, c.Auth(auth)
}

func (e *subEnv) mustLogin(t *testing.T, implicit bool) *smtp.Client {
	t.Helper()
	c, err := e.login(t, implicit, e.Project.Secret)
	if err != nil {
		t.Fatalf("AUTH: %v", err)
	}
	return c
}

// submit runs one transaction and returns the email ids of its 250.
func submit(c *smtp.Client, from string, to []string, msg string) ([]string, error) {
	if err := c.Mail(from, nil); err != nil {
		return nil, err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return nil, err
		}
	}
	w, err := c.Data()
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(w, msg); err != nil {
		return nil, err
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return nil, err
	}
	ids, ok := strings.CutPrefix(resp.StatusText, "2.0.0 queued as ")
	if !ok {
		return nil, fmt.Errorf("250 %s: no email ids", resp.StatusText)
	}
	return strings.Split(ids, ","), nil
}

func mustSubmit(t *testing.T, c *smtp.Client, from string, to []string, msg string) []string {
	t.Helper()
	ids, err := submit(c, from, to, msg)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if len(ids) != len(to) {
		t.Fatalf("%d ids for %d recipients: %v", len(ids), len(to), ids)
	}
	return ids
}

// code is an SMTP error's "550 5.7.1".
func code(err error) string {
	var e *smtp.SMTPError
	if !errors.As(err, &e) {
		return fmt.Sprint(err)
	}
	c := e.EnhancedCode
	return fmt.Sprintf("%d %d.%d.%d", e.Code, c[0], c[1], c[2])
}

// received waits for n messages at the sink and returns them by recipient.
func (e *subEnv) received(t *testing.T, n int) map[string]smtptest.Received {
	t.Helper()
	e.Sink.Wait(n, 30*time.Second)
	out := map[string]smtptest.Received{}
	for _, m := range e.Sink.Messages() {
		for _, to := range m.To {
			out[to] = m
		}
	}
	if len(out) != n {
		t.Fatalf("%d recipients received, want %d", len(out), n)
	}
	return out
}

// verifyDKIM checks a received message's one signature against the
// test's DNS server, and that it signs the sending domain.
func (e *subEnv) verifyDKIM(t *testing.T, raw []byte) {
	t.Helper()
	res := resolver.New(e.DNS.Addr, time.Second)
	vs, err := msgauth.VerifyWithOptions(bytes.NewReader(raw), &msgauth.VerifyOptions{
		LookupTXT: func(name string) ([]string, error) { return res.TXT(context.Background(), name) },
	})
	if err != nil || len(vs) != 1 || vs[0].Err != nil || vs[0].Domain != shopDomain {
		t.Fatalf("DKIM: %v %+v", err, vs)
	}
}

// split returns a message's header and body.
func split(t *testing.T, raw []byte) (string, []byte) {
	t.Helper()
	h, b, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no body in %q", raw)
	}
	return string(h) + "\r\n", b
}

// header reads a message's header fields.
func header(t *testing.T, raw []byte) mail.Header {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m.Header
}

// rawParts returns the leaves of a message's MIME tree as written (their
// header and undecoded body), in order.
func rawParts(t *testing.T, raw []byte) []part {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []part
	walkParts(t, m.Header.Get("Content-Type"), m.Body, &out)
	return out
}

type part struct {
	contentType string
	body        []byte
}

func walkParts(t *testing.T, contentType string, body io.Reader, out *[]part) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", contentType, err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		*out = append(*out, part{mt, b})
		return
	}
	r := multipart.NewReader(body, params["boundary"])
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		walkParts(t, p.Header.Get("Content-Type"), p, out)
	}
}

// owner is an Access to the test project, for the settings a test changes.
func (e *subEnv) owner() accounts.Access {
	return accounts.Access{Project: e.Project, Role: accounts.RoleOwner}
}

// eventsOf returns the project's events of a name, newest first.
func (e *subEnv) eventsOf(t *testing.T, name string) []audience.Event {
	t.Helper()
	page, err := e.App.Audience.ListEvents(context.Background(), e.Project.ID, audience.EventQuery{Limit: 100, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return page.Data
}
