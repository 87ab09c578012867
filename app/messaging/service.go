package messaging

import (
	"context"
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/tracking"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB       *storage.DB
	Clock    clock.Clock
	Log      *slog.Logger
	BaseURL  string // public URL used in links
	Jobs     *queue.Dispatcher
	Events   *event.Service
	Accounts *accounts.Service
	Audience *audience.Service
	Senders  *senders.Service
	Tracking *tracking.Service
	Renderer *render.Renderer
	Metrics  *metrics.Metrics // nil: nothing counted

	Mailer   Mailer // hands messages to the network; nil in one-shot commands
	Delivery DeliveryOptions
	// InboundHost is the public host receiving bounces ("" when inbound
	// is off): with it, return paths are VERP addresses.
	InboundHost string
	SNSFetcher  Fetcher // GETs SNS certificates and subscription URLs; default NewHTTPFetcher
	// Handoff holds signed messages in memory for their first attempt;
	// default a new one of HandoffBytes. Campaigns share it.
	Handoff *Handoff

	// CampaignEmailSettled is called inside the write that gives a
	// campaign's email its final state, so that the campaign can end.
	CampaignEmailSettled func(ctx context.Context, tx *storage.Tx, e storage.Email, status string) error
}

// Service sends mail: /v1/send, templates, composing and queueing
// messages, the delivery job and its retries, bounces and complaints,
// uploads. Its methods are safe for concurrent use.
type Service struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	baseURL  string
	jobs     *queue.Dispatcher
	events   *event.Service
	accounts *accounts.Service
	audience *audience.Service
	senders  *senders.Service
	tracking *tracking.Service
	renderer *render.Renderer
	metrics  *metrics.Metrics

	mailer      Mailer
	delivery    DeliveryOptions
	inboundHost string
	handoff     *Handoff
	relay       *relayHealth
	snsCerts    *snsCerts

	campaignEmailSettled func(ctx context.Context, tx *storage.Tx, e storage.Email, status string) error
}

// New builds the messaging service.
func New(o Options) *Service {
	if o.Handoff == nil {
		o.Handoff = NewHandoff(HandoffBytes)
	}
	if o.CampaignEmailSettled == nil {
		o.CampaignEmailSettled = func(context.Context, *storage.Tx, storage.Email, string) error { return nil }
	}
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, baseURL: o.BaseURL, jobs: o.Jobs, events: o.Events,
		accounts: o.Accounts, audience: o.Audience, senders: o.Senders, tracking: o.Tracking, renderer: o.Renderer,
		metrics: o.Metrics, mailer: o.Mailer, delivery: o.Delivery.WithDefaults(), inboundHost: o.InboundHost,
		handoff: o.Handoff, relay: &relayHealth{}, snsCerts: newSNSCerts(o.SNSFetcher),
		campaignEmailSettled: o.CampaignEmailSettled}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }

// Delivery is the delivery settings in force, defaults applied.
func (s *Service) Delivery() DeliveryOptions { return s.delivery }

// RelayProblem says why the SMTP relay refuses Herald now ("" when it
// does not), for readiness.
func (s *Service) RelayProblem() string { return s.relay.Problem() }
