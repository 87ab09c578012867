package senders

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/readcache"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB    *storage.DB
	Clock clock.Clock
	Log   *slog.Logger
	DNS   DNS // the sender-domain checks' resolver; *resolver.Client
	// InboundHost is the public host receiving bounces ("" when inbound
	// is off): the MX of each domain's bounce subdomain.
	InboundHost string
	// Sandbox: domains are verified without DNS (sandbox.go).
	Sandbox bool
}

// Service owns sender domains: their DNS records and checks, their DKIM
// keys and the signers made from them. Its methods are safe for
// concurrent use.
type Service struct {
	db          *storage.DB
	clock       clock.Clock
	log         *slog.Logger
	dns         DNS
	inboundHost string
	sandbox     bool

	signers signerCache
	senders *readcache.Cache[senderKey, string] // verified sender domains' ids
}

// New builds the sender-domain service.
func New(o Options) *Service {
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, dns: o.DNS,
		inboundHost: o.InboundHost, sandbox: o.Sandbox, senders: readcache.New[senderKey, string](o.Clock.Now)}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }

// ForgetDomains drops the cached verified domains, once a write that
// removed a project's domains has committed.
func (s *Service) ForgetDomains() { s.senders.Forget() }
