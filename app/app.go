// Package app is Herald's domain: projects and keys, contacts and their
// data rules, events, and the background work it runs on the queue (its
// table of job kinds is job_kinds.go). It knows nothing of HTTP; web calls
// one method per request and maps the *Error values it returns onto the
// API's envelope.
//
// Big features have sub-packages of their own, each with a package doc
// that says what it owns: app/workflow (workflows' API and engine, over a
// Host interface app implements in workflow_host.go), app/message (MIME),
// app/render (templates), app/verify (address checks), app/password. The
// error values and pages app's methods answer with are in app/apierr and
// app/paging, so that sub-packages answer alike. Tests build an App with
// app/apptest.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Options are App's dependencies and settings. main builds them.
type Options struct {
	DB             *storage.DB
	Clock          clock.Clock  // default clock.System
	Log            *slog.Logger // default slog.Default
	Verifier       *verify.Verifier
	BaseURL        string        // public URL used in links
	IdempotencyTTL time.Duration // default 24h
	Workers        int           // job concurrency; default 4
	Mailer         Mailer        // hands messages to the network; nil in one-shot commands
	Delivery       DeliveryOptions
	InboundHost    string           // public host receiving bounces; "" when inbound is off
	DNS            DNS              // sender-domain checks; *resolver.Client
	SNSFetcher     Fetcher          // GETs SNS certificates and subscription URLs; default NewHTTPFetcher
	Metrics        *metrics.Metrics // nil: nothing counted
	Accounts       AccountOptions

	Webhooks WebhookOptions // the workflow WEBHOOK step's client

	// PublicProjectRateLimit is opens and clicks recorded per project per
	// minute (engageBudget); 0: no limit.
	PublicProjectRateLimit int

	// RenderWork is the wall-clock bound of one template render; 0:
	// render.MaxWork.
	RenderWork time.Duration
}

// App is the domain service. Its methods are safe for concurrent use.
type App struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	verifier *verify.Verifier
	baseURL  string
	idemTTL  time.Duration
	keys     *keyCache
	jobs     *queue.Dispatcher
	links    linkKeys
	signers  signerCache
	senders  *readCache[senderKey, string]      // verified sender domains' ids
	limits   *readCache[string, storage.Limits] // projects' billing caps

	mailer      Mailer
	handoff     *handoff
	delivery    DeliveryOptions
	inboundHost string

	dns      DNS
	renderer *render.Renderer
	snsCerts *snsCerts

	metrics  *metrics.Metrics
	relay    *relayHealth
	accounts *accounts

	repeats *engagementRepeats // opens and clicks recorded in the last minute
	engaged *engagedEmails     // the emails recently opened or clicked
	budget  *engageBudget      // opens and clicks recorded per project per minute
	billing *billingLocks

	workflows *workflow.Engine
}

// New wires an App and its table of job kinds. Call Run to start the
// background work.
func New(o Options) *App {
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.IdempotencyTTL <= 0 {
		o.IdempotencyTTL = 24 * time.Hour
	}
	a := &App{
		db:       o.DB,
		clock:    o.Clock,
		log:      o.Log,
		verifier: o.Verifier,
		baseURL:  o.BaseURL,
		idemTTL:  o.IdempotencyTTL,
		keys:     newKeyCache(),
		senders:  newReadCache[senderKey, string](),
		limits:   newReadCache[string, storage.Limits](),
		handoff:  newHandoff(handoffBytes),

		mailer:      o.Mailer,
		delivery:    o.Delivery.withDefaults(),
		inboundHost: o.InboundHost,

		dns:      o.DNS,
		renderer: render.NewRendererWithin(o.RenderWork),
		snsCerts: newSNSCerts(o.SNSFetcher),

		metrics: o.Metrics,
		relay:   &relayHealth{},
	}
	a.accounts = newAccounts(o.Accounts, o.Clock.Now)
	a.billing = newBillingLocks()
	a.keys.now = o.Clock.Now
	a.workflows = workflow.New(workflow.Options{DB: o.DB, Clock: o.Clock, Log: o.Log, Host: workflowHost{a},
		Renderer: a.renderer, Webhooks: o.Webhooks})
	jobs, err := queue.New(queue.Options{DB: o.DB, Clock: o.Clock, Log: o.Log,
		Lanes: a.jobLanes(o.Workers), Kinds: a.jobKinds()})
	if err != nil {
		panic("app: " + err.Error()) // the table is code: a bad one is a bug any test finds
	}
	a.jobs = jobs
	a.repeats = newEngagementRepeats()
	a.engaged = newEngagedEmails(maxEngagedEmails, maxEngagedBytes)
	a.budget = newEngageBudget(o.PublicProjectRateLimit)
	return a
}

// Jobs is the dispatcher that runs the background work.
func (a *App) Jobs() *queue.Dispatcher { return a.jobs }

// Run starts the periodic jobs and runs the dispatcher until ctx ends, then
// waits for the jobs in flight.
func (a *App) Run(ctx context.Context) error {
	if err := a.jobs.SchedulePeriodic(ctx); err != nil {
		return err
	}
	a.jobs.Run(ctx)
	return nil
}

func (a *App) now() time.Time { return clock.Stamp(a.clock) }
