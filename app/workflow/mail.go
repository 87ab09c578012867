package workflow

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/storage"
)

// Mail is a SEND_EMAIL step's email, rendered, built and signed outside
// the write by Host.PrepareMail, or the reason the step fails.
type Mail struct {
	StepExecID string
	Email      storage.Email
	Queue      bool // false: only record the email as FAILED (unsubscribed contact)
	Output     map[string]any
	Failure    string // the step's own failure; nothing else is set
}

// prepareMails prepares the emails of the due executions that stand at a
// SEND_EMAIL step; only those are read in full.
func (en *Service) prepareMails(ctx context.Context, refs []storage.DueRef) (map[string]*Mail, error) {
	out := map[string]*Mail{}
	var ids []string
	for _, d := range refs {
		if d.StepType == StepSendEmail {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	r := en.db.Reader()
	due, err := storage.ExecutionsByIDs(ctx, r, ids)
	if err != nil {
		return nil, err
	}
	for _, x := range due {
		if x.CurrentStep == nil || x.CurrentStep.Type != StepSendEmail {
			continue // the last step execution started is not an email's
		}
		se, err := storage.LastStepExec(ctx, r, x.ID)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if se.Step.Type != StepSendEmail || se.Status != storage.StepRunning {
			continue
		}
		m, err := en.prepareMail(ctx, x, se)
		if err != nil {
			return nil, err
		}
		out[x.ID] = m
	}
	return out, nil
}

// commitMail stores a prepared email in the step's write: queued for
// delivery with its email.sent event, or recorded FAILED.
func (en *Service) commitMail(ctx context.Context, tx *storage.Tx, m *Mail) error {
	if m.Queue {
		return en.messaging.QueueEmail(ctx, tx, m.Email)
	}
	return tx.InsertEmail(ctx, m.Email)
}
