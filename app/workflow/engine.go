package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Batch sizes of the engine's writes: big enough that a burst of events
// or of timers falling due at one instant costs few transactions, small
// enough that a write stays short. A due batch costs about 0.1 ms of the
// writer per execution (docs/performance.md, "Workflow DELAY wave"): 1,024
// hold the write lock about 100 ms, and 2,048 saved only some 8% more.
const (
	enrolBatch = 256
	dueBatch   = 1024
)

// wake makes sure the run job looks at the executions due at t:
// the step-run job for work due now, the timer job for a later instant
// (pulled earlier if it sleeps past t).
func (en *Service) wake(ctx context.Context, tx *storage.Tx, t time.Time) error {
	kind := JobTimer
	if !t.After(en.clock.Now()) {
		kind = JobStep
	}
	if _, err := en.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: kind, RunAt: t, UniqueKey: kind}); err != nil {
		return err
	}
	return tx.PullJobEarlier(ctx, kind, t)
}

type webhookPayload struct {
	StepExecutionID string `json:"stepExecutionId"`
	ExecutionID     string `json:"executionId"`
}

func (en *Service) enqueueWebhook(ctx context.Context, tx *storage.Tx, x *storage.Execution, se *storage.StepExecution) error {
	_, err := en.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobWebhook, ProjectID: x.ProjectID,
		Payload: webhookPayload{StepExecutionID: se.ID, ExecutionID: x.ID}, UniqueKey: JobWebhook + ":" + se.ID})
	return err
}

// RunEnrol takes the engine's inbox in batches: each event enrols
// its contact in the enabled workflows it triggers and ends the waits it
// answers. The write that empties the inbox also ends the job, so an event
// noted meanwhile either is in a batch or finds no job and queues one.
func (en *Service) RunEnrol(ctx context.Context, job *queue.RunningJob) (any, error) {
	for {
		empty := false
		err := en.db.Write(ctx, func(tx *storage.Tx) error {
			empty = false
			evs, err := tx.TakeInbox(ctx, enrolBatch)
			if err != nil {
				return err
			}
			if len(evs) == 0 {
				empty = true
				return job.FinishIn(ctx, tx)
			}
			wfs, graphs := map[string][]storage.Workflow{}, map[string]*Graph{}
			for i := range evs {
				if err := en.enrolEvent(ctx, tx, wfs, graphs, &evs[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			err = en.enrolSingly(ctx, err)
		}
		if err != nil || empty {
			return nil, err
		}
	}
}

// enrolSingly handles the next batch's events one write each; an event
// that fails on its own is dropped with a log line rather than holding up
// every event after it.
func (en *Service) enrolSingly(ctx context.Context, cause error) error {
	en.log.Warn("workflow enrolment batch failed; taking its events one by one", "err", cause)
	for range enrolBatch {
		empty := false
		err := en.db.Write(ctx, func(tx *storage.Tx) error {
			evs, err := tx.TakeInbox(ctx, 1)
			if err != nil || len(evs) == 0 {
				empty = err == nil
				return err
			}
			return en.enrolEvent(ctx, tx, map[string][]storage.Workflow{}, map[string]*Graph{}, &evs[0])
		})
		if err != nil {
			en.log.Error("workflow enrolment dropped an event", "err", err)
			err = en.db.Write(ctx, func(tx *storage.Tx) error {
				_, err := tx.TakeInbox(ctx, 1)
				return err
			})
		}
		if err != nil || empty {
			return err
		}
	}
	return nil
}

// enrolEvent handles one inbox event inside the batch's write.
func (en *Service) enrolEvent(ctx context.Context, tx *storage.Tx, cache map[string][]storage.Workflow, graphs map[string]*Graph, ev *storage.InboxEvent) error {
	key := ev.ProjectID + "\x00" + ev.Name
	wfs, ok := cache[key]
	if !ok {
		all, err := storage.WorkflowsByEvent(ctx, tx, ev.ProjectID, ev.Name)
		if err != nil {
			return err
		}
		for _, w := range all {
			if w.Enabled && w.TriggerType == TriggerEvent {
				wfs = append(wfs, w)
			}
		}
		cache[key] = wfs
	}
	if err := en.endWaits(ctx, tx, graphs, ev); err != nil {
		return err
	}
	if len(wfs) == 0 {
		return nil
	}
	c, err := storage.ContactByID(ctx, tx, ev.ProjectID, ev.ContactID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil // deleted since
	}
	if err != nil {
		return err
	}
	own := ""
	if strings.HasPrefix(ev.Name, "email.") {
		var d struct {
			WorkflowID string `json:"workflowId"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		own = d.WorkflowID
	}
	execCtx := ev.Data
	if t := strings.TrimSpace(string(execCtx)); t == "" || t[0] != '{' {
		execCtx = json.RawMessage(`{}`)
	}
	for _, w := range wfs {
		if w.ID == own {
			continue // never from the workflow's own emails
		}
		blocked, err := ReentryBlocked(ctx, tx, w, c.ID)
		if err != nil {
			return err
		}
		if blocked {
			continue
		}
		source := ev.EventID
		x, err := en.newExecution(ctx, tx, w, c, execCtx, &source, graphs)
		if err != nil {
			return err
		}
		if x.ID == "" {
			continue // already enrolled from this event
		}
		if err := en.advance(ctx, tx, newRun(w, &x, graphs), stepInput{}); err != nil {
			return err
		}
	}
	return nil
}

// endWaits ends the WAIT_FOR_EVENT steps of the contact that await the
// event's name and began before it.
func (en *Service) endWaits(ctx context.Context, tx *storage.Tx, graphs map[string]*Graph, ev *storage.InboxEvent) error {
	xs, err := storage.WaitingForEvent(ctx, tx, ev.ContactID, ev.Name)
	if err != nil {
		return err
	}
	for i := range xs {
		x := &xs[i]
		last, err := storage.LastStepExec(ctx, tx, x.ID)
		if err != nil {
			return err
		}
		if last.Status != storage.StepWaiting || last.StartedAt.After(ev.CreatedAt) {
			continue
		}
		w, err := storage.WorkflowByID(ctx, tx, x.ProjectID, x.WorkflowID)
		if err != nil {
			return err
		}
		if err := en.advance(ctx, tx, newRun(w, x, graphs), stepInput{event: ev}); err != nil {
			return err
		}
	}
	return nil
}

// RunDue moves the executions that are due: those that can go on
// now and those whose DELAY or WAIT_FOR_EVENT timeout came. Emails of
// SEND_EMAIL steps are rendered and signed before each batch's write. The
// write that finds nothing due ends the job and queues the timer job for
// the next due execution, so no wake-up is lost between the two.
func (en *Service) RunDue(ctx context.Context, job *queue.RunningJob) (any, error) {
	stalled := 0
	for {
		now := en.clock.Now()
		due, err := storage.DueExecutionRefs(ctx, en.db.Reader(), now, dueBatch)
		if err != nil {
			return nil, err
		}
		if len(due) == 0 {
			finished := false
			err := en.db.Write(ctx, func(tx *storage.Tx) error {
				finished = false
				more, err := storage.DueExecutionRefs(ctx, tx, now, 1)
				if err != nil || len(more) > 0 {
					return err
				}
				if err := job.FinishIn(ctx, tx); err != nil {
					return err
				}
				finished = true
				next, ok, err := storage.NextDueExecution(ctx, tx)
				if err != nil || !ok {
					return err
				}
				return en.wake(ctx, tx, next)
			})
			if err != nil || finished {
				return nil, err
			}
			continue
		}
		mails, err := en.prepareMails(ctx, due)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(due))
		for i, d := range due {
			ids[i] = d.ID
		}
		moved, err := en.moveDue(ctx, ids, mails, now)
		if err != nil && len(ids) > 1 {
			// One execution the engine cannot move must not hold up the
			// others: move them one by one and fail the broken one.
			moved, err = en.moveDueSingly(ctx, ids, mails, now, err)
		}
		if err != nil {
			return nil, err
		}
		if moved == 0 {
			// Nothing could move (an email whose step changed under it):
			// try again later rather than spin.
			if stalled++; stalled > 2 {
				return nil, errors.New("workflow executions are due but none could move")
			}
		} else {
			stalled = 0
		}
	}
}

// moveDue moves a batch of due executions in one write. Their step
// executions, their own rows and their workflow.* items are gathered and
// written together at the end of the write (storage.WorkflowWrites); the
// contacts their steps read are read together (batchContacts).
func (en *Service) moveDue(ctx context.Context, ids []string, mails map[string]*Mail, now time.Time) (int, error) {
	moved := 0
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		moved = 0
		wfs, graphs := map[string]storage.Workflow{}, map[string]*Graph{}
		// Read again inside the write: a cancel or an event may have
		// moved them since.
		current, err := storage.EngineExecutionsByIDs(ctx, tx, ids)
		if err != nil {
			return err
		}
		out, contacts := storage.NewWorkflowWrites(), newBatchContacts(current)
		for _, x := range current {
			if !x.Active() || x.DueAt == nil || x.DueAt.After(now) {
				continue
			}
			w, ok := wfs[x.WorkflowID]
			if !ok {
				if w, err = storage.WorkflowByID(ctx, tx, x.ProjectID, x.WorkflowID); err != nil {
					return err
				}
				wfs[x.WorkflowID] = w
			}
			before := x.DueAt
			r := newRun(w, &x, graphs)
			r.out, r.contacts = out, contacts
			if err := en.advance(ctx, tx, r, stepInput{mail: mails[x.ID]}); err != nil {
				return err
			}
			if x.DueAt == nil || !x.DueAt.Equal(*before) || x.Status != storage.ExecRunning {
				moved++
			}
		}
		return out.Flush(ctx, tx)
	})
	return moved, err
}

// moveDueSingly moves executions one write each; one that fails on its
// own is FAILED with the cause, so that nothing stays due for ever.
func (en *Service) moveDueSingly(ctx context.Context, ids []string, mails map[string]*Mail, now time.Time, cause error) (int, error) {
	en.log.Warn("workflow batch failed; moving its executions one by one", "err", cause)
	moved := 0
	for _, id := range ids {
		n, err := en.moveDue(ctx, []string{id}, mails, now)
		if err == nil {
			moved += n
			continue
		}
		en.log.Error("workflow execution failed inside the engine", "execution", id, "err", err)
		failure := "Internal error: " + err.Error()
		err = en.db.Write(ctx, func(tx *storage.Tx) error {
			x, err := storage.ExecutionByIDAny(ctx, tx, id)
			if err != nil || !x.Active() {
				return err
			}
			w, err := storage.WorkflowByID(ctx, tx, x.ProjectID, x.WorkflowID)
			if err != nil {
				return err
			}
			return en.failExecution(ctx, tx, newRun(w, &x, nil), nil, failure)
		})
		if err != nil {
			return moved, err
		}
		moved++
	}
	return moved, nil
}

// GiveUpJob is the outcome of the engine's batch jobs: their work
// is in rows (inbox, due executions) that the next job takes again, so a
// given-up job only needs its cause in the log.
func (en *Service) GiveUpJob(_ context.Context, _ *storage.Tx, job storage.Job, cause error) error {
	en.log.Error("workflow engine job gave up; its work stays queued for the next one", "kind", job.Kind, "err", cause)
	return nil
}
