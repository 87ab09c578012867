package web_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// authRelay is a smarthost that takes AUTH PLAIN with one password, which
// the test changes to play the operator fixing the configuration.
type authRelay struct {
	addr     string
	password atomic.Value // string
	logins   atomic.Int32
	received atomic.Int32
}

func startAuthRelay(t *testing.T, password string) *authRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &authRelay{addr: ln.Addr().String()}
	r.password.Store(password)
	srv := smtp.NewServer(r)
	srv.Domain, srv.AllowInsecureAuth = "relay.test", true
	srv.ReadTimeout, srv.WriteTimeout = 5*time.Second, 5*time.Second
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return r
}

func (r *authRelay) NewSession(*smtp.Conn) (smtp.Session, error) { return &relaySession{r: r}, nil }

type relaySession struct {
	r      *authRelay
	authed bool
}

func (s *relaySession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		s.r.logins.Add(1)
		if user != "herald" || pass != s.r.password.Load().(string) {
			return smtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}
func (s *relaySession) Mail(string, *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	return nil
}
func (s *relaySession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *relaySession) Data(rd io.Reader) error {
	_, _ = io.Copy(io.Discard, rd)
	s.r.received.Add(1)
	return nil
}
func (s *relaySession) Reset()        {}
func (s *relaySession) Logout() error { return nil }

// countingHandler counts log records by level and message.
type countingHandler struct {
	mu    *sync.Mutex
	lines *[]string
}

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.lines = append(*h.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// TestRelayAuthFailureIsAConfigError: a relay refusing Herald's
// credentials is logged at ERROR once, shown by /readyz, and the
// deliveries wait without using their attempts until it is fixed.
func TestRelayAuthFailureIsAConfigError(t *testing.T) {
	relay := startAuthRelay(t, "the-right-one")
	var mu sync.Mutex
	var lines []string
	e := webtest.New(t, webtest.Options{
		Log:      slog.New(countingHandler{mu: &mu, lines: &lines}),
		SMTP:     func(c *smtpout.Config) { c.Relay, c.RelayUsername, c.RelayPassword = relay.addr, "herald", "wrong" },
		Delivery: messaging.DeliveryOptions{Relay: true, RetryBase: time.Minute, GiveUp: 10 * time.Minute},
	})
	verifiedDomain(t, e, "herald.test")
	for _, to := range []string{"ada@example.net", "bob@example.org"} {
		sendOK(t, e, map[string]any{"to": to, "from": "hello@herald.test", "subject": "s", "body": "b"})
	}
	readyProblem := func() string {
		r := e.Do("GET", "/readyz", "", nil)
		if r.Status == 200 {
			return ""
		}
		return r.JSON()["checks"].(map[string]any)["relay"].(string)
	}
	waitFor(t, "readyz to report the relay", func() bool { return strings.Contains(readyProblem(), "refuses Herald's credentials") })

	// Several probe rounds, past the give-up time: still one ERROR line,
	// and no attempt counted on any email.
	for range 12 {
		e.AdvanceToRetry(messaging.JobDeliver)
		waitFor(t, "the probe's postponement", func() bool { return allPostponed(t, e) })
	}
	if n := relay.logins.Load(); n < 2 || n > 14 {
		t.Fatalf("%d logins: want about one per probe", n)
	}
	mu.Lock()
	errorsLogged := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "ERROR") {
			errorsLogged++
		}
		if strings.Contains(l, "wrong") {
			t.Errorf("the password was logged: %s", l)
		}
	}
	mu.Unlock()
	if errorsLogged != 1 {
		t.Fatalf("%d ERROR lines, want 1:\n%s", errorsLogged, strings.Join(lines, "\n"))
	}
	emails := allEmails(t, e)
	for _, em := range emails {
		if em.Status != storage.EmailPending || em.Attempts != 0 {
			t.Fatalf("email %s is %s after %d attempts, want PENDING after 0", em.ID, em.Status, em.Attempts)
		}
	}

	// The operator fixes it: the waiting deliveries go.
	relay.password.Store("wrong")
	e.AdvanceToRetry(messaging.JobDeliver)
	waitFor(t, "both deliveries", func() bool { return relay.received.Load() == 2 })
	waitFor(t, "readyz to recover", func() bool { return readyProblem() == "" })
}

// allPostponed: no delivery runs and none is due: each waits for a later
// probe, its attempt handed back.
func allPostponed(t *testing.T, e *webtest.Env) bool {
	var n int
	err := e.DB.Reader().QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE kind = ?
		AND (state = 'active' OR (state = 'queued' AND run_at <= ?))`, messaging.JobDeliver, storage.Millis(e.Clock.Now())).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	var sending int
	_ = e.DB.Reader().QueryRow(context.Background(), `SELECT count(*) FROM emails WHERE status <> 'PENDING'`).Scan(&sending)
	return n == 0 && sending == 0
}

func allEmails(t *testing.T, e *webtest.Env) []storage.Email {
	t.Helper()
	rows, err := e.DB.Reader().Query(context.Background(), `SELECT id FROM emails`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	var out []storage.Email
	for _, id := range ids {
		em, err := storage.EmailByID(context.Background(), e.DB.Reader(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, em)
	}
	if len(out) == 0 {
		t.Fatal(errors.New("no emails"))
	}
	return out
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ok() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
