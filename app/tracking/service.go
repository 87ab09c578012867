package tracking

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/storage"
)

// Options are a Service's dependencies.
type Options struct {
	DB       *storage.DB
	Clock    clock.Clock
	Log      *slog.Logger
	BaseURL  string // public URL the links point at
	Events   *event.Service
	Accounts *accounts.Service
	Audience *audience.Service
	Metrics  *metrics.Metrics // nil: nothing counted
	// PublicProjectRateLimit is opens and clicks recorded per project per
	// minute (engageBudget); 0: no limit.
	PublicProjectRateLimit int
}

// Service owns Herald's links: link tokens, tracked HTML, the open pixel
// and click redirects, and the subscription and preference pages behind
// them. Its methods are safe for concurrent use.
type Service struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	baseURL  string
	events   *event.Service
	accounts *accounts.Service
	audience *audience.Service
	metrics  *metrics.Metrics

	links   linkKeys
	repeats *engagementRepeats // opens and clicks recorded in the last minute
	engaged *engagedEmails     // the emails recently opened or clicked
	budget  *engageBudget      // opens and clicks recorded per project per minute
}

// New builds the tracking service.
func New(o Options) *Service {
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, baseURL: o.BaseURL, events: o.Events,
		accounts: o.Accounts, audience: o.Audience, metrics: o.Metrics,
		repeats: newEngagementRepeats(), engaged: newEngagedEmails(maxEngagedEmails, maxEngagedBytes),
		budget: newEngageBudget(o.PublicProjectRateLimit)}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }

// ForgetRemoved is called inside a write that deletes contacts or emails:
// the recently engaged emails are forgotten once it commits, so that an
// open of a deleted email is not recorded from memory.
func (s *Service) ForgetRemoved(tx *storage.Tx) { s.engaged.Removed(tx) }
