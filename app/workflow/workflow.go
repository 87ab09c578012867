package workflow

import (
	"log/slog"
	"time"

	"github.com/heraldmail/herald/clock"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// The engine's job kinds. app lists them in its one table of kinds
// (app/job_kinds.go) with the Service's handlers: enrolment from the
// inbox, the step run for executions due now, the timer for executions
// due later (DELAY resumes, WAIT_FOR_EVENT timeouts), and one job per
// WEBHOOK step execution with its retries.
const (
	JobEnrol   = "workflow.enrol"
	JobStep    = "workflow.step"
	JobTimer   = "workflow.timer"
	JobWebhook = "workflow.webhook"
)

// Options are the Service's dependencies.
type Options struct {
	DB        *storage.DB
	Clock     clock.Clock
	Log       *slog.Logger
	Jobs      *queue.Dispatcher
	Audience  *audience.Service
	Senders   *senders.Service
	Messaging *messaging.Service
	Renderer  *render.Renderer // renders templates, WEBHOOK bodies and headers
	Webhooks  WebhookOptions
}

// Service runs workflow executions. Its methods are safe for concurrent
// use.
type Service struct {
	db        *storage.DB
	clock     clock.Clock
	log       *slog.Logger
	jobs      *queue.Dispatcher
	audience  *audience.Service
	senders   *senders.Service
	messaging *messaging.Service
	renderer  *render.Renderer
	triggers  *workflowTriggers // the table of wanted event names
	webhooks  WebhookOptions
}

// New builds an Service; its jobs run once app's dispatcher runs.
func New(o Options) *Service {
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, jobs: o.Jobs, audience: o.Audience, senders: o.Senders, messaging: o.Messaging, renderer: o.Renderer,
		triggers: newWorkflowTriggers(), webhooks: o.Webhooks.withDefaults()}
}

// now is the engine's time, as app's: UTC, to the millisecond.
func (en *Service) now() time.Time { return clock.Stamp(en.clock) }
