package workflow

import (
	"context"

	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/clock"

	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// The engine's job kinds. app lists them in its one table of kinds
// (app/job_kinds.go) with the Engine's handlers: enrolment from the
// inbox, the step run for executions due now, the timer for executions
// due later (DELAY resumes, WAIT_FOR_EVENT timeouts), and one job per
// WEBHOOK step execution with its retries.
const (
	JobEnrol   = "workflow.enrol"
	JobStep    = "workflow.step"
	JobTimer   = "workflow.timer"
	JobWebhook = "workflow.webhook"
)

// Host is what the engine needs from the rest of the domain, all inside
// the caller's write where a tx is given.
type Host interface {
	// PrepareMail renders, builds and DKIM-signs a SEND_EMAIL step's email
	// from a read, outside the write lock; a failure of the step's own
	// (no template, an unverified sender) is returned in Mail.Failure.
	PrepareMail(ctx context.Context, x storage.Execution, se storage.StepExecution) (*Mail, error)
	// QueueMail commits a prepared email with its delivery job and
	// email.sent, as /v1/send would.
	QueueMail(ctx context.Context, tx *storage.Tx, e storage.Email) error
	// ApplyData merges an UPDATE_CONTACT step's updates into contact
	// data by the contact data rules (a null deletes a key) and reports
	// whether anything changed.
	ApplyData(data, updates map[string]any) bool
	// EmitSubscription records contact.subscribed or contact.unsubscribed
	// for a contact whose subscription the step flipped.
	EmitSubscription(ctx context.Context, tx *storage.Tx, c storage.Contact, reason string, now time.Time) error
	// Enqueue queues a job of one of the engine's kinds in the write.
	Enqueue(ctx context.Context, tx *storage.Tx, s queue.JobSpec) (string, error)

	// CheckEmail normalises an address a step's config gives (a CUSTOM
	// recipient) as contacts' are, and records a failure at field when
	// its syntax is invalid.
	CheckEmail(v *apierr.Validation, field, raw string) string
	// IsReservedKey reports a contact data key that only Herald sets,
	// which an UPDATE_CONTACT step may not change.
	IsReservedKey(key string) bool
}

// Options are the Engine's dependencies.
type Options struct {
	DB       *storage.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Host     Host
	Renderer *render.Renderer // renders WEBHOOK bodies and headers
	Webhooks WebhookOptions
}

// Engine runs workflow executions. Its methods are safe for concurrent
// use.
type Engine struct {
	db       *storage.DB
	clock    clock.Clock
	log      *slog.Logger
	host     Host
	renderer *render.Renderer
	triggers *workflowTriggers // the table of wanted event names
	webhooks WebhookOptions
}

// New builds an Engine; its jobs run once app's dispatcher runs.
func New(o Options) *Engine {
	return &Engine{db: o.DB, clock: o.Clock, log: o.Log, host: o.Host, renderer: o.Renderer,
		triggers: newWorkflowTriggers(), webhooks: o.Webhooks.withDefaults()}
}

// now is the engine's time, as app's: UTC, to the millisecond.
func (en *Engine) now() time.Time { return clock.Stamp(en.clock) }
