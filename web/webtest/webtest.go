// Package webtest starts a whole Herald for a test: a freshly migrated
// SQLite database in a temp dir, the app on a fake clock, the real HTTP
// stack behind httptest, a DNS server on loopback and a project with its
// keys. Tests then call the API as an integrator would.
package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/password"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web"
)

// Env is one running Herald.
type Env struct {
	T     testing.TB
	DB    *storage.DB
	App   *app.App
	Clock *queue.FakeClock
	DNS   *dnstest.Server
	Sink  *smtptest.Sink // the mail server every test domain's MX points at
	// Commits and Writes count the write transactions committed and the
	// writes they held (the benchmarks' probes report them per message).
	Commits, Writes atomic.Int64
	Server          *httptest.Server
	Project         app.Project
	cancel          context.CancelFunc
	done            chan struct{}
	runCtx          context.Context
}

// StartWorkers runs the job dispatcher of an Env made with NoWorkers.
func (e *Env) StartWorkers() {
	done := make(chan struct{})
	e.done = done
	go func() { defer close(done); _ = e.App.Run(e.runCtx) }()
}

// Options adjust an Env.
type Options struct {
	RateLimit int  // requests per minute per project; 0: no limit
	NoWorkers bool // do not run the job dispatcher
	// InboundHost is app.Options.InboundHost: the bounce host that sender
	// domains' return-path records point at. "" leaves inbound off.
	InboundHost string
	// SNSFetcher is app.Options.SNSFetcher: tests serve their own SNS
	// signing certificate (see app/sns/snstest).
	SNSFetcher app.Fetcher
	// Log receives the app's and the HTTP layer's logs; nil discards them.
	Log *slog.Logger
	// BodyTimeout is web.Options.BodyTimeout.
	BodyTimeout time.Duration
	// Metrics and MetricsToken are web.Options' (and Metrics app's).
	Metrics      *metrics.Metrics
	MetricsToken string
	// SMTP adjusts the mailer's configuration (a relay, say) and
	// Delivery the app's delivery options.
	SMTP     func(*smtpout.Config)
	Delivery app.DeliveryOptions
	// Accounts is app.Options.Accounts. Its password parameters default
	// to cheap ones (FastPasswords), so that tests do not wait on argon2id.
	Accounts app.AccountOptions
	// BaseURL is app.Options.BaseURL; default http://herald.test.
	BaseURL string
	// PublicRateLimit, FailedKeyLimit and Warnings are web.Options'.
	PublicRateLimit, FailedKeyLimit int
	Warnings                        []string
	// Webhooks is app.Options.Webhooks; its Resolver defaults to the
	// test's DNS server.
	Webhooks app.WebhookOptions
	// PublicProjectRateLimit is app.Options'; 0: no limit.
	PublicProjectRateLimit int
	// RenderWork is app.Options'; 0: the production bound.
	RenderWork time.Duration
	// Wrap, when set, wraps the server's handler (benchmarks time the
	// requests inside the server with it).
	Wrap func(http.Handler) http.Handler
}

// FastPasswords are argon2id parameters for tests: same code path, a
// fraction of the cost.
var FastPasswords = password.Params{Memory: 256, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// Start is a time far from any edge, so that tests read well.
var Start = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// New starts a Herald and stops it when the test ends.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Env{T: t, Clock: queue.NewFakeClock(Start), DNS: dnstest.Start(t), Sink: smtptest.Start(t),
		cancel: cancel, done: make(chan struct{})}
	dbOpts := storage.Options{OnBatch: func(writes int) {
		e.Commits.Add(1)
		e.Writes.Add(int64(writes))
		o.Metrics.WriteBatch(writes) // nil-safe
	}}
	db, err := storage.Open(ctx, t.TempDir(), dbOpts)
	if err != nil {
		t.Fatal(err)
	}
	e.DB = db
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dns := resolver.New(e.DNS.Addr, time.Second)
	smtpCfg := smtpout.Config{Hostname: "herald.test", Port: e.Sink.Port,
		Timeouts: smtpout.Timeouts{Connect: 2 * time.Second, Greeting: 2 * time.Second, Command: 2 * time.Second, Data: 5 * time.Second}}
	if o.SMTP != nil {
		o.SMTP(&smtpCfg)
	}
	mailer := smtpout.New(smtpCfg, dns, &net.Dialer{}, log)
	t.Cleanup(func() { mailer.Close() })
	if o.Accounts.Password.Memory == 0 {
		o.Accounts.Password = FastPasswords
	}
	if o.BaseURL == "" {
		o.BaseURL = "http://herald.test"
	}
	e.App = app.New(app.Options{DB: db, Clock: e.Clock, Log: log, BaseURL: o.BaseURL,
		Verifier: newVerifier(e.DNS.Addr), DNS: dns, Mailer: mailer, Workers: 2, InboundHost: o.InboundHost,
		SNSFetcher: o.SNSFetcher, Metrics: o.Metrics, Delivery: o.Delivery, Accounts: o.Accounts,
		Webhooks: webhooks(o.Webhooks, dns), PublicProjectRateLimit: o.PublicProjectRateLimit, RenderWork: o.RenderWork})
	if o.Metrics != nil {
		o.Metrics.Watch(e.App.MetricsSource())
	}
	var handler http.Handler = web.New(web.Options{App: e.App, Log: log, Clock: e.Clock,
		RateLimit: o.RateLimit, Features: map[string]bool{"tracking": true}, BodyTimeout: o.BodyTimeout,
		PublicRateLimit: o.PublicRateLimit, FailedKeyLimit: o.FailedKeyLimit, Warnings: o.Warnings,
		Metrics: o.Metrics, MetricsToken: o.MetricsToken})
	if o.Wrap != nil {
		handler = o.Wrap(handler)
	}
	e.Server = httptest.NewServer(handler)
	e.runCtx = ctx
	if o.NoWorkers {
		close(e.done)
	} else {
		e.StartWorkers()
	}
	t.Cleanup(e.stop)
	if e.Project, err = e.App.CreateProject(ctx, "Test project"); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *Env) stop() {
	e.Server.Close()
	e.cancel()
	<-e.done
	e.DB.Close()
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

func newVerifier(dnsAddr string) *verify.Verifier {
	return verify.New(verify.Options{DNS: resolver.New(dnsAddr, time.Second), CacheTTL: -1, Lists: lists()})
}

// Response is a decoded API response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r Response) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Decode decodes the body into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// ErrorCode is error.code of an envelope.
func (r Response) ErrorCode() string {
	if e, ok := r.JSON()["error"].(map[string]any); ok {
		s, _ := e["code"].(string)
		return s
	}
	return ""
}

// Do sends a request with the given key ("" for none). A body that is a
// string or []byte is sent as is, anything else as JSON.
func (e *Env) Do(method, path, key string, body any, headers ...string) Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.Server.URL+path, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Secret calls the API with the project's secret key.
func (e *Env) Secret(method, path string, body any, headers ...string) Response {
	e.T.Helper()
	return e.Do(method, path, e.Project.Secret, body, headers...)
}

// Public calls the API with the project's public key.
func (e *Env) Public(method, path string, body any, headers ...string) Response {
	e.T.Helper()
	return e.Do(method, path, e.Project.Public, body, headers...)
}

// WaitJob polls a job status endpoint until the job has finished.
func (e *Env) WaitJob(path string) map[string]any {
	e.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := e.Secret("GET", path, nil)
		m := r.JSON()
		if s := m["state"]; s == "completed" || s == "failed" {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.T.Fatalf("job %s did not finish", path)
	return nil
}

// RouteMail points a recipient domain's MX at the test's SMTP sink.
func (e *Env) RouteMail(domain string) {
	e.DNS.Add(e.T, domain+". 300 IN MX 10 mx."+domain+".", "mx."+domain+". 300 IN A 127.0.0.1")
}

// AdvanceToRetry waits until a job of the kind is queued for later (a
// retry after its backoff), then moves the fake clock to that time.
func (e *Env) AdvanceToRetry(kind string) {
	e.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		next, ok, err := storage.NextRunOfKind(context.Background(), e.DB.Reader(), kind)
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

func webhooks(o app.WebhookOptions, dns *resolver.Client) app.WebhookOptions {
	if o.Resolver == nil {
		o.Resolver = dns
	}
	return o
}
