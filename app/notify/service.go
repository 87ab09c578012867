package notify

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB        *storage.DB
	Clock     clock.Clock
	Log       *slog.Logger
	Senders   *senders.Service
	Messaging *messaging.Service
	// SystemFrom is the From address of platform mail
	// (HERALD_SYSTEM_FROM); "" sends none.
	SystemFrom string
}

// Service sends Herald's own mail to its users. It implements
// accounts.Notifier.
type Service struct {
	db         *storage.DB
	clock      clock.Clock
	log        *slog.Logger
	senders    *senders.Service
	messaging  *messaging.Service
	systemFrom string
}

// New builds the platform mail service.
func New(o Options) *Service {
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, senders: o.Senders, messaging: o.Messaging, systemFrom: o.SystemFrom}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }
