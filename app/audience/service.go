package audience

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/verify"
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
	Jobs     *queue.Dispatcher
	Events   *event.Service
	Accounts *accounts.Service
	Verifier *verify.Verifier
	Metrics  *metrics.Metrics // nil: nothing counted
	// ContactsRemoved is called inside a write that deletes contacts, so
	// that caches above audience that hold their rows (tracking's recently
	// engaged emails) forget them once it commits.
	ContactsRemoved func(tx *storage.Tx)
}

// Service is Herald's audience. Its methods are safe for concurrent use.
type Service struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	jobs     *queue.Dispatcher
	events   *event.Service
	accounts *accounts.Service
	verifier *verify.Verifier
	metrics  *metrics.Metrics

	contactsRemoved func(tx *storage.Tx)
}

// New builds the audience service.
func New(o Options) *Service {
	if o.ContactsRemoved == nil {
		o.ContactsRemoved = func(*storage.Tx) {}
	}
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, jobs: o.Jobs, events: o.Events, accounts: o.Accounts,
		verifier: o.Verifier, metrics: o.Metrics, contactsRemoved: o.ContactsRemoved}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }
