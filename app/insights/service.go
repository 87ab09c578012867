package insights

import (
	"time"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB        *storage.DB
	Clock     clock.Clock
	Workflows *workflow.Service // the steps waiting on a timer, for the upcoming sends
}

// Service answers what happened and what is coming: the activity feed,
// its stats and the analytics series. It only reads.
type Service struct {
	db       *storage.DB
	clock    clock.Clock
	workflow *workflow.Service
}

// New builds the insights service.
func New(o Options) *Service { return &Service{db: o.DB, clock: o.Clock, workflow: o.Workflows} }

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }
