// Package apptest builds a whole app for a test, without HTTP: a freshly
// migrated SQLite database in t.TempDir(), the app on a fake clock, a DNS
// server and an SMTP sink on loopback (the mailer delivers every test
// domain there once RouteMail points its MX at it), a project with its
// keys, and a cleanup that stops the workers and closes everything when
// the test ends. Domain tests call *app.App's methods on it; web/webtest
// builds its Env on this one and adds the HTTP stack.
//
// It is a package of its own, and not a helper in app's test files,
// because it must be shared: by app's external tests, by web/webtest, by
// the dashboard's browser tests and by the tests of app's sub-packages
// (app/workflow's engine tests). The price is that it imports app, so
// tests inside package app cannot use it; most of app's tests are
// external (package app_test) and reach only the API the rest of Herald
// sees. The few internal ones that need an App over a database (links,
// the import rerun) build it by hand; to use apptest they would become
// external tests with an export_test.go exposing the internals they
// call.
package apptest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/password"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/storage"
)

// Env is one app over its own database.
type Env struct {
	T   testing.TB
	DB  *storage.DB
	App *app.App
	// Clock is the app's clock; nil when Options.RealClock.
	Clock   *clocktest.Fake
	DNS     *dnstest.Server  // nil when Offline
	Sink    *smtptest.Sink   // the mail server every routed domain's MX points at; nil when Offline
	Project accounts.Project // zero when NoProject

	ctx    context.Context // cancelled when the test ends: stops the workers
	cancel context.CancelFunc
	done   chan struct{} // closed when the workers have stopped
}

// Options adjust an Env. The zero value is a full app with its workers
// running on a fake clock, a mailer and a project.
type Options struct {
	NoWorkers bool // do not run the job dispatcher (StartWorkers runs it later)
	NoProject bool // do not create the test project
	// Offline starts no DNS server, no SMTP sink and no mailer, for tests
	// that send nothing and check no domain.
	Offline bool
	// RealClock runs the app on the system clock (browser tests, whose
	// page reads the browser's clock).
	RealClock bool
	Storage   storage.Options       // the database's options (OnBatch, say)
	Log       *slog.Logger          // the app's log; nil discards it
	SMTP      func(*smtpout.Config) // adjusts the mailer's configuration (a relay, say)
	// App adjusts the app's options last, after the Env's own are set.
	App func(*app.Options)
}

// FastPasswords are argon2id parameters for tests: same code path, a
// fraction of the cost. Every Env uses them unless App sets others.
var FastPasswords = password.Params{Memory: 256, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// Start is the fake clock's first instant, a time far from any edge, so
// that tests read well.
var Start = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// New builds an app and stops it when the test ends.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := storage.Open(ctx, t.TempDir(), o.Storage)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // last: after the workers and the mailer have stopped
	e := &Env{T: t, DB: db, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Sign-up is open: tests sign up as many users as they need. The
	// tests of the sign-up modes (and of the default, first) set theirs.
	opts := app.Options{DB: db, Log: log, BaseURL: "http://herald.test", Workers: 2,
		Accounts: accounts.Settings{Password: FastPasswords, Signups: accounts.SignupsOpen}}
	if o.RealClock {
		opts.Clock = clock.System{}
	} else {
		e.Clock = clocktest.NewFake(Start)
		opts.Clock = e.Clock
	}
	if !o.Offline {
		e.startMail(&opts, o.SMTP, log)
	}
	if o.App != nil {
		o.App(&opts)
	}
	e.App = app.New(opts)
	t.Cleanup(e.stop) // before the mailer closes: no delivery is cut off
	if o.NoWorkers {
		close(e.done)
	} else {
		e.StartWorkers()
	}
	if !o.NoProject {
		if e.Project, err = e.App.Accounts.CreateProject(ctx, "Test project"); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// startMail starts the DNS server and the SMTP sink and gives the app a
// mailer, a resolver, a verifier and a webhook resolver over them.
func (e *Env) startMail(opts *app.Options, adjust func(*smtpout.Config), log *slog.Logger) {
	e.DNS, e.Sink = dnstest.Start(e.T), smtptest.Start(e.T)
	dns := resolver.New(e.DNS.Addr, time.Second)
	cfg := smtpout.Config{Hostname: "herald.test", Port: e.Sink.Port,
		Timeouts: smtpout.Timeouts{Connect: 2 * time.Second, Greeting: 2 * time.Second, Command: 2 * time.Second, Data: 5 * time.Second}}
	if adjust != nil {
		adjust(&cfg)
	}
	mailer := smtpout.New(cfg, dns, &net.Dialer{}, log)
	e.T.Cleanup(func() { mailer.Close() })
	opts.DNS, opts.Mailer, opts.Webhooks.Resolver = dns, mailer, dns
	opts.Verifier = verify.New(verify.Options{DNS: dns, CacheTTL: -1, Lists: lists()})
}

// StartWorkers runs the job dispatcher of an Env made with NoWorkers.
func (e *Env) StartWorkers() {
	done := make(chan struct{})
	e.done = done
	go func() { defer close(done); _ = e.App.Run(e.ctx) }()
}

// Context is the Env's context, cancelled when the test ends.
func (e *Env) Context() context.Context { return e.ctx }

func (e *Env) stop() {
	e.cancel()
	<-e.done
}

// RouteMail points a recipient domain's MX at the test's SMTP sink.
func (e *Env) RouteMail(domain string) {
	e.DNS.Add(e.T, domain+". 300 IN MX 10 mx."+domain+".", "mx."+domain+". 300 IN A 127.0.0.1")
}

// VerifiedDomain adds a sender domain to the project, publishes the DKIM
// record it is given in the test's DNS server and verifies it, so that
// templates and sends from the domain are accepted.
func (e *Env) VerifiedDomain(domain string) senders.Domain {
	e.T.Helper()
	ctx := context.Background()
	d, err := e.App.Senders.AddDomain(ctx, e.Project.ID, senders.AddDomainInput{Domain: &domain})
	if err != nil {
		e.T.Fatal(err)
	}
	for _, rec := range d.Records {
		if rec.Type == "TXT" && strings.Contains(rec.Name, "._domainkey.") {
			e.DNS.Add(e.T, fmt.Sprintf("%s. 300 IN TXT %s", rec.Name, txtStrings(rec.Value)))
		}
	}
	if d, err = e.App.Senders.VerifyDomain(ctx, e.Project.ID, d.ID); err != nil || !d.Verified {
		e.T.Fatalf("domain %s not verified: %+v %v", domain, d, err)
	}
	return d
}

// txtStrings quotes a TXT value in strings of at most 255 bytes.
func txtStrings(v string) string {
	var parts []string
	for len(v) > 255 {
		parts = append(parts, `"`+v[:255]+`"`)
		v = v[255:]
	}
	return strings.Join(append(parts, `"`+v+`"`), " ")
}

// AdvanceToRetry waits until a job of the kind is queued for later (a
// retry after its backoff), then moves the fake clock to that time.
func (e *Env) AdvanceToRetry(kind string) {
	e.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		next, ok, err := e.App.Jobs().NextRun(context.Background(), kind)
		if err != nil {
			e.T.Fatal(err)
		}
		if now := e.Clock.Now(); ok && next.After(now) {
			e.Clock.Advance(next.Sub(now))
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	e.T.Fatalf("no %s job was scheduled for later", kind)
}

// lists are parsed once per test binary: they are read-only, and parsing
// them for every Env would add a second to a package's tests.
var lists = sync.OnceValue(func() *verify.Lists {
	l, err := verify.LoadLists()
	if err != nil {
		panic(err)
	}
	return l
})
