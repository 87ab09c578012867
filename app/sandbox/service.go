package sandbox

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// The mailbox's default bounds: the newest messages only, so that a
// sandbox left running does not fill the disk.
const (
	DefaultKeep     = 1000
	DefaultMaxBytes = 100 << 20
)

// Options are a Service's dependencies.
type Options struct {
	DB       *storage.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Accounts *accounts.Service // who may read a project's messages
	Senders  *senders.Service  // the DKIM keys the check reads
	// On: the installation runs as a sandbox. Off, the Service captures
	// nothing (app does not give it to messaging) and its reads are 404.
	On bool
	// Keep and MaxBytes bound the mailbox: the newest Keep messages, and
	// no more than MaxBytes of them in all (the newest always stays).
	// Zero: DefaultKeep, DefaultMaxBytes.
	Keep     int
	MaxBytes int64
}

// Service is the sandbox's mailbox. Its methods are safe for concurrent
// use.
type Service struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	accounts *accounts.Service
	senders  *senders.Service
	on       bool
	keep     int
	maxBytes int64
}

// New builds the mailbox.
func New(o Options) *Service {
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, accounts: o.Accounts, senders: o.Senders, on: o.On,
		keep: o.Keep, maxBytes: o.MaxBytes}
}

// On reports whether the installation runs as a sandbox.
func (s *Service) On() bool { return s.on }

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }
