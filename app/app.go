// Package app is Herald's composition root. It builds the domain services
// (one package each under app/, in the order event < accounts < audience,
// senders < tracking < messaging < campaigns, workflow, notify <
// insights), wires the hooks through which a lower one reaches a higher
// one, and holds what belongs to no single domain: the table of job kinds
// and lanes (job_kinds.go), readiness and metrics (readiness.go), the
// periodic cleanup (maintenance.go) and idempotency (idempotency.go).
//
// web calls the services directly, naming the domain:
// s.app.Audience.UpsertContact(...). Tests build an App with app/apptest.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/insights"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/notify"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/sandbox"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/tracking"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Options are App's dependencies and settings. cli builds them.
type Options struct {
	DB             *storage.DB
	Clock          clock.Clock  // default clock.System
	Log            *slog.Logger // default slog.Default
	Verifier       *verify.Verifier
	BaseURL        string                    // public URL used in links
	IdempotencyTTL time.Duration             // default 24h
	Workers        int                       // job concurrency; default 4
	Mailer         messaging.Mailer          // hands messages to the network; nil in one-shot commands
	Delivery       messaging.DeliveryOptions // the delivery lane and its retries
	InboundHost    string                    // public host receiving bounces; "" when inbound is off
	DNS            senders.DNS               // sender-domain checks; *resolver.Client
	SNSFetcher     messaging.Fetcher         // GETs SNS certificates and subscription URLs; default NewHTTPFetcher
	Metrics        *metrics.Metrics          // nil: nothing counted
	Accounts       accounts.Settings

	Webhooks workflow.WebhookOptions // the workflow WEBHOOK step's client

	// PublicProjectRateLimit is opens and clicks recorded per project per
	// minute; 0: no limit.
	PublicProjectRateLimit int

	// RenderWork is the wall-clock bound of one template render; 0:
	// render.MaxWork.
	RenderWork time.Duration

	// Sandbox: nothing leaves the machine. Every message is captured in
	// the sandbox's mailbox instead of being handed to Mailer (which may
	// be nil), and sender domains are verified without DNS.
	Sandbox bool
	// Warnings are the configuration's warnings the administrator sees
	// (GET /users/@me); DeliveryWarnings, when set, adds the delivery
	// checks' (HERALD_PUBLIC_IP, its PTR) at each read.
	Warnings         []string
	DeliveryWarnings func(ctx context.Context) []string
}

// App holds Herald's domain services. Its fields are set once by New.
type App struct {
	Events    *event.Service
	Accounts  *accounts.Service
	Audience  *audience.Service
	Senders   *senders.Service
	Tracking  *tracking.Service
	Messaging *messaging.Service
	Campaigns *campaigns.Service
	Workflows *workflow.Service
	Notify    *notify.Service
	Insights  *insights.Service
	Sandbox   *sandbox.Service // its On() says whether the installation is a sandbox

	db      *storage.DB
	clock   clock.Clock
	log     *slog.Logger
	idemTTL time.Duration
	jobs    *queue.Dispatcher
}

// New builds every service and the dispatcher that runs their jobs. Call
// Run to start the background work.
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
	o.Delivery = o.Delivery.WithDefaults()
	a := &App{db: o.DB, clock: o.Clock, log: o.Log, idemTTL: o.IdempotencyTTL}
	handoff := messaging.NewHandoff(messaging.HandoffBytes)
	// The dispatcher comes first, since every service queues work on it;
	// its kind table reaches the services through a, once they exist.
	jobs, err := queue.New(queue.Options{DB: o.DB, Clock: o.Clock, Log: o.Log,
		Lanes: jobLanes(o.Workers, o.Delivery.Workers), Kinds: a.jobKinds(o, handoff)})
	if err != nil {
		panic("app: " + err.Error()) // the table is code: a bad one is a bug any test finds
	}
	a.jobs = jobs
	renderer := render.NewRendererWithin(o.RenderWork)
	db, clk, log := o.DB, o.Clock, o.Log

	a.Events = event.New(event.Options{Subscribers: []event.Subscriber{
		func(ctx context.Context, tx *storage.Tx, events ...storage.Event) error {
			return a.Workflows.NoteEvents(ctx, tx, events...)
		},
	}})
	a.Accounts = accounts.New(accounts.Options{DB: db, Clock: clk, Log: log, BaseURL: o.BaseURL,
		Settings: o.Accounts, Notifier: platformMail{a},
		ProjectDataRemoved: func(tx *storage.Tx) {
			a.Tracking.ForgetRemoved(tx)
			tx.OnCommit(a.Senders.ForgetDomains)
		},
		Warnings: installationWarnings(o.Warnings, o.DeliveryWarnings)})
	a.Audience = audience.New(audience.Options{DB: db, Clock: clk, Log: log, Jobs: jobs, Events: a.Events,
		Accounts: a.Accounts, Verifier: o.Verifier, Metrics: o.Metrics,
		ContactsRemoved: func(tx *storage.Tx) { a.Tracking.ForgetRemoved(tx) }})
	a.Senders = senders.New(senders.Options{DB: db, Clock: clk, Log: log, DNS: o.DNS, InboundHost: o.InboundHost,
		Sandbox: o.Sandbox})
	a.Sandbox = sandbox.New(sandbox.Options{DB: db, Clock: clk, Log: log, Accounts: a.Accounts, Senders: a.Senders,
		On: o.Sandbox})
	if o.Sandbox {
		o.Mailer, o.Delivery.Relay = a.Sandbox, false
	}
	a.Tracking = tracking.New(tracking.Options{DB: db, Clock: clk, Log: log, BaseURL: o.BaseURL, Events: a.Events,
		Accounts: a.Accounts, Audience: a.Audience, Metrics: o.Metrics, PublicProjectRateLimit: o.PublicProjectRateLimit})
	a.Messaging = messaging.New(messaging.Options{DB: db, Clock: clk, Log: log, BaseURL: o.BaseURL, Jobs: jobs,
		Events: a.Events, Accounts: a.Accounts, Audience: a.Audience, Senders: a.Senders, Tracking: a.Tracking,
		Renderer: renderer, Metrics: o.Metrics, Mailer: o.Mailer, Delivery: o.Delivery, InboundHost: o.InboundHost,
		SNSFetcher: o.SNSFetcher, Handoff: handoff,
		CampaignEmailSettled: func(ctx context.Context, tx *storage.Tx, e storage.Email, status string) error {
			return a.Campaigns.CampaignEmailSettled(ctx, tx, e, status)
		}})
	a.Campaigns = campaigns.New(campaigns.Options{DB: db, Clock: clk, Log: log, Jobs: jobs, Accounts: a.Accounts,
		Audience: a.Audience, Senders: a.Senders, Messaging: a.Messaging, Handoff: handoff})
	a.Workflows = workflow.New(workflow.Options{DB: db, Clock: clk, Log: log, Jobs: jobs, Audience: a.Audience,
		Senders: a.Senders, Messaging: a.Messaging, Renderer: renderer, Webhooks: o.Webhooks})
	a.Notify = notify.New(notify.Options{DB: db, Clock: clk, Log: log, Senders: a.Senders, Messaging: a.Messaging,
		SystemFrom: o.Accounts.SystemFrom})
	a.Insights = insights.New(insights.Options{DB: db, Clock: clk, Workflows: a.Workflows})
	return a
}

// installationWarnings is accounts' Warnings hook: the configuration's
// warnings, then the delivery checks'.
func installationWarnings(static []string, checks func(context.Context) []string) func(context.Context) []string {
	static = append([]string(nil), static...)
	return func(ctx context.Context) []string {
		out := append([]string(nil), static...)
		if checks != nil {
			out = append(out, checks(ctx)...)
		}
		return out
	}
}

// platformMail is accounts' Notifier: notify is built after accounts.
type platformMail struct{ a *App }

func (p platformMail) Ready(ctx context.Context) bool { return p.a.Notify.Ready(ctx) }

func (p platformMail) Send(ctx context.Context, to, subject, template string, data any) error {
	return p.a.Notify.Send(ctx, to, subject, template, data)
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
