package campaigns

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB        *storage.DB
	Clock     clock.Clock
	Log       *slog.Logger
	Jobs      *queue.Dispatcher
	Accounts  *accounts.Service
	Audience  *audience.Service
	Senders   *senders.Service
	Messaging *messaging.Service
	Handoff   *messaging.Handoff // the one messaging delivers from
}

// Service owns campaigns: drafts, schedules, the fan-out that signs and
// queues each recipient's email, cancelling, stats and test sends. Its
// methods are safe for concurrent use.
type Service struct {
	db        *storage.DB
	clock     clock.Clock
	log       *slog.Logger
	jobs      *queue.Dispatcher
	accounts  *accounts.Service
	audience  *audience.Service
	senders   *senders.Service
	messaging *messaging.Service
	handoff   *messaging.Handoff
}

// New builds the campaigns service.
func New(o Options) *Service {
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, jobs: o.Jobs, accounts: o.Accounts,
		audience: o.Audience, senders: o.Senders, messaging: o.Messaging, handoff: o.Handoff}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }
