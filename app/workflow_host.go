package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Workflows live in app/workflow; app gives the Engine the send path, the
// contact data rules, events and the queue through workflowHost, and keeps
// the thin methods below and in workflows.go.

// WebhookOptions configure the WEBHOOK step's HTTP client.
type WebhookOptions = workflow.WebhookOptions

// IPResolver looks up a host's addresses; *resolver.Client is one.
type IPResolver = workflow.IPResolver

// ReasonWorkflow is the reason of contact.* events an UPDATE_CONTACT step
// causes.
const ReasonWorkflow = workflow.ReasonWorkflow

// workflowHost is the engine's view of app (workflow.Host).
type workflowHost struct{ a *App }

// PrepareMail is in workflow_mail.go: it is the send path's.

func (h workflowHost) QueueMail(ctx context.Context, tx *storage.Tx, e storage.Email) error {
	return h.a.queueEmail(ctx, tx, e)
}

func (h workflowHost) ApplyData(data, updates map[string]any) bool {
	return ParseData(updates).Apply(data)
}

func (h workflowHost) EmitSubscription(ctx context.Context, tx *storage.Tx, c storage.Contact, reason string, now time.Time) error {
	return h.a.emitSubscription(ctx, tx, c, reason, now)
}

func (h workflowHost) Enqueue(ctx context.Context, tx *storage.Tx, s queue.JobSpec) (string, error) {
	return h.a.jobs.Enqueue(ctx, tx, s)
}

func (h workflowHost) CheckEmail(v *Validation, field, raw string) string {
	return checkEmail(v, field, raw)
}

func (h workflowHost) IsReservedKey(key string) bool { return isReservedKey(key) }

// noteEvents hands the workflow engine, inside the write that records
// them, the events it wants (workflow.Engine.NoteEvents).
func (a *App) noteEvents(ctx context.Context, tx *storage.Tx, events ...storage.Event) error {
	return a.workflows.NoteEvents(ctx, tx, events...)
}

// insertEvent records an event and hands it to the workflow engine.
func (a *App) insertEvent(ctx context.Context, tx *storage.Tx, ev storage.Event) error {
	if err := tx.InsertEvent(ctx, ev); err != nil {
		return err
	}
	return a.noteEvents(ctx, tx, ev)
}
