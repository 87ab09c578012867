// Package webtest starts a whole Herald for a test: app/apptest's app (a
// freshly migrated SQLite database in a temp dir, the app on a fake clock,
// a DNS server and an SMTP sink on loopback, a project with its keys)
// behind the real HTTP stack in httptest. Tests then call the API as an
// integrator would.
package webtest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web"
)

// Env is one running Herald: an apptest.Env (the app, its database, fake
// clock, DNS server, SMTP sink and project) behind a real HTTP server.
type Env struct {
	*apptest.Env
	Server *httptest.Server
	// Web is the HTTP layer behind Server (the submission listener's
	// tests share its wrong-key counter: Web.KeyFailures()).
	Web *web.Server
	// Counts counts the write transactions committed and the writes they
	// held (the benchmarks' probes report them per message).
	Counts *WriteCounts
}

// WriteCounts are an Env's committed write transactions and their writes.
type WriteCounts struct{ Commits, Writes atomic.Int64 }

// Options adjust an Env.
type Options struct {
	RateLimit int  // requests per minute per project; 0: no limit
	NoWorkers bool // do not run the job dispatcher
	// InboundHost is app.Options.InboundHost: the bounce host that sender
	// domains' return-path records point at. "" leaves inbound off.
	InboundHost string
	// SNSFetcher is app.Options.SNSFetcher: tests serve their own SNS
	// signing certificate (see app/sns/snstest).
	SNSFetcher messaging.Fetcher
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
	Delivery messaging.DeliveryOptions
	// Accounts is app.Options.Accounts. Its password parameters default
	// to cheap ones (FastPasswords), so that tests do not wait on argon2id,
	// and its sign-up mode to open, so that tests sign up as many users as
	// they need: a test of the modes (the default, first, included) names
	// its own.
	Accounts accounts.Settings
	// BaseURL is app.Options.BaseURL; default http://herald.test.
	BaseURL string
	// PublicRateLimit, FailedKeyLimit and Warnings are web.Options';
	// Warnings are app.Options' too (the administrator's).
	PublicRateLimit, FailedKeyLimit int
	Warnings                        []string
	// Webhooks is app.Options.Webhooks; its Resolver defaults to the
	// test's DNS server.
	Webhooks workflow.WebhookOptions
	// PublicProjectRateLimit is app.Options'; 0: no limit.
	PublicProjectRateLimit int
	// RenderWork is app.Options'; 0: the production bound.
	RenderWork time.Duration
	// Sandbox is app.Options.Sandbox: every message is captured, none
	// reaches the SMTP sink, and domains are verified without DNS.
	Sandbox bool
	// Wrap, when set, wraps the server's handler (benchmarks time the
	// requests inside the server with it).
	Wrap func(http.Handler) http.Handler
}

// FastPasswords are argon2id parameters for tests: same code path, a
// fraction of the cost.
var FastPasswords = apptest.FastPasswords

// Start is a time far from any edge, so that tests read well.
var Start = apptest.Start

// New starts a Herald and stops it when the test ends.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	counts := &WriteCounts{}
	dbOpts := storage.Options{OnBatch: func(writes int) {
		counts.Commits.Add(1)
		counts.Writes.Add(int64(writes))
		o.Metrics.WriteBatch(writes) // nil-safe
	}}
	ae := apptest.New(t, apptest.Options{NoWorkers: o.NoWorkers, Storage: dbOpts, Log: o.Log, SMTP: o.SMTP,
		App: func(a *app.Options) { adjustApp(a, o) }})
	e := &Env{Env: ae, Counts: counts}
	if o.Metrics != nil {
		o.Metrics.Watch(e.App.MetricsSource())
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e.Web = web.New(web.Options{App: e.App, Log: log, Clock: e.Clock,
		RateLimit: o.RateLimit, Features: map[string]bool{"tracking": true}, BodyTimeout: o.BodyTimeout,
		PublicRateLimit: o.PublicRateLimit, FailedKeyLimit: o.FailedKeyLimit, Warnings: o.Warnings,
		Metrics: o.Metrics, MetricsToken: o.MetricsToken})
	var handler http.Handler = e.Web
	if o.Wrap != nil {
		handler = o.Wrap(handler)
	}
	e.Server = httptest.NewServer(handler)
	t.Cleanup(e.Server.Close) // before apptest stops the workers and closes the database
	return e
}

// adjustApp sets the app options an Env's Options name over apptest's.
func adjustApp(a *app.Options, o Options) {
	a.InboundHost, a.SNSFetcher, a.Metrics, a.Delivery = o.InboundHost, o.SNSFetcher, o.Metrics, o.Delivery
	a.PublicProjectRateLimit, a.RenderWork, a.Warnings = o.PublicProjectRateLimit, o.RenderWork, o.Warnings
	a.Sandbox = o.Sandbox
	if o.BaseURL != "" {
		a.BaseURL = o.BaseURL
	}
	if o.Accounts.Password.Memory == 0 {
		o.Accounts.Password = FastPasswords
	}
	if o.Accounts.Signups == "" {
		o.Accounts.Signups = accounts.SignupsOpen
	}
	a.Accounts = o.Accounts
	if o.Webhooks.Resolver == nil {
		o.Webhooks.Resolver = a.Webhooks.Resolver
	}
	a.Webhooks = o.Webhooks
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
