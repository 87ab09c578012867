package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/storage"
)

// The workflow engine moves executions through their steps inside write
// transactions: every step's effect (a contact update, an email row and
// its delivery job, a recorded webhook answer) commits in the same write
// that marks the step done and moves the execution on, so a kill at any
// moment leaves each effect either done and recorded or not done at all.
// Work that must not hold the write lock (rendering and signing an email,
// calling a webhook) runs before the write and hands its result in.

// maxStepsPerWrite bounds how far one write moves an execution: a graph
// has no cycles, so this is only a guard.
const maxStepsPerWrite = 256

// stepInput is what work outside the write brings to an open step.
type stepInput struct {
	mail  *Mail               // SEND_EMAIL
	hook  *webhookResult      // WEBHOOK
	event *storage.InboxEvent // WAIT_FOR_EVENT
}

// execRun is an execution being moved inside one write.
type execRun struct {
	w      storage.Workflow
	x      *storage.Execution
	vars   map[string]any    // the execution's context, decoded on first use (vars)
	graphs map[string]*Graph // the write's graphs by workflow: the engine never changes one
	// In a batch of due executions: the batch's gathered writes and its
	// contacts (nil: write and read through the transaction).
	out      *storage.WorkflowWrites
	contacts *batchContacts
}

// graph is the execution's workflow graph, loaded once per write.
func (r *execRun) graph(ctx context.Context, tx *storage.Tx) (*Graph, error) {
	if g, ok := r.graphs[r.w.ID]; ok {
		return g, nil
	}
	g, err := LoadGraph(ctx, tx, r.w.ID)
	if err == nil {
		r.graphs[r.w.ID] = g
	}
	return g, err
}

// context is the execution's context as a map: most steps never look at
// it, so a wave of DELAYs does not decode it.
func (r *execRun) context() map[string]any {
	if r.vars == nil {
		r.vars, _ = jsondata.Decode(r.x.Context)
		if r.vars == nil {
			r.vars = map[string]any{}
		}
	}
	return r.vars
}

func (r *execRun) saveContext() {
	b, _ := json.Marshal(r.context())
	r.x.Context = b
}

// newRun starts moving an execution; graphs is shared by the executions
// of one write (nil: a fresh one).
func newRun(w storage.Workflow, x *storage.Execution, graphs map[string]*Graph) *execRun {
	if graphs == nil {
		graphs = map[string]*Graph{}
	}
	return &execRun{w: w, x: x, graphs: graphs}
}

// newExecution creates a RUNNING execution at the workflow's TRIGGER step,
// due now; the caller runs it or wakes the engine. It reports a zero
// Execution when the workflow already ran for the source event.
func (en *Service) newExecution(ctx context.Context, tx *storage.Tx, w storage.Workflow, c storage.Contact, execCtx json.RawMessage, sourceEventID *string, graphs map[string]*Graph) (storage.Execution, error) {
	g, err := newRun(w, &storage.Execution{}, graphs).graph(ctx, tx)
	if err != nil {
		return storage.Execution{}, err
	}
	var trigger *storage.WorkflowStep
	for i := range g.Steps {
		if g.Steps[i].Type == StepTrigger {
			trigger = &g.Steps[i]
		}
	}
	if trigger == nil {
		return storage.Execution{}, errors.New("workflow has no TRIGGER step")
	}
	now := en.now()
	x := storage.Execution{ID: newID(), ProjectID: w.ProjectID, WorkflowID: w.ID, ContactID: c.ID,
		Contact: storage.ContactRef{ID: c.ID, Email: c.Email}, Status: storage.ExecRunning, CurrentStepID: &trigger.ID,
		Context: execCtx, SourceEventID: sourceEventID, DueAt: &now, StartedAt: now, CreatedAt: now}
	ok, err := tx.InsertExecution(ctx, x)
	if err != nil || !ok {
		return storage.Execution{}, err
	}
	return x, en.emitWorkflowEvent(ctx, tx, w, x, "workflow.started")
}

// advance moves an execution as far as it can go now: it ends the open
// step if its outcome is known (a due timer, the awaited event, the
// prepared email, the webhook's answer), then runs the steps that follow.
func (en *Service) advance(ctx context.Context, tx *storage.Tx, r *execRun, in stepInput) error {
	var last storage.StepExecution
	var err error
	if r.x.LastStep != nil { // read with the execution, in this write
		last = *r.x.LastStep
	} else {
		last, err = storage.LastStepExec(ctx, tx, r.x.ID)
	}
	r.x.LastStep = nil // stale once the execution moves
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return en.proceed(ctx, tx, r, deref(r.x.CurrentStepID), in)
	case err != nil:
		return err
	}
	switch last.Status {
	case storage.StepRunning, storage.StepScheduled, storage.StepWaiting:
		next, done, err := en.resume(ctx, tx, r, &last, in)
		if err != nil || !done {
			return err
		}
		return en.proceed(ctx, tx, r, next, in)
	}
	// The last step ended but the execution did not move on: a write that
	// ended a step always moves it, so this is only reached if the graph
	// changed under it. Carry on from the step's way out.
	next, err := en.nextStep(ctx, tx, r, last.StepID, "", "")
	if err != nil {
		return err
	}
	return en.proceed(ctx, tx, r, next, in)
}

// proceed starts stepID and the steps after it until the execution has to
// wait or ends.
func (en *Service) proceed(ctx context.Context, tx *storage.Tx, r *execRun, stepID string, in stepInput) error {
	for range maxStepsPerWrite {
		if stepID == "" {
			return en.finishExecution(ctx, r.writer(tx), r.w, r.x, storage.ExecCompleted, "")
		}
		g, err := r.graph(ctx, tx)
		if err != nil {
			return err
		}
		st, ok := g.ByID[stepID]
		if !ok {
			return en.failExecution(ctx, tx, r, nil, "The step "+stepID+" was deleted while the execution ran")
		}
		now := en.now()
		se := &storage.StepExecution{ID: newID(), ExecutionID: r.x.ID, StepID: st.ID,
			Step: storage.StepRef{ID: st.ID, Name: st.Name, Type: st.Type}, Status: storage.StepRunning, StartedAt: now}
		r.x.CurrentStepID = &st.ID
		next, wait, err := en.startStep(ctx, tx, r, st, se)
		if err != nil {
			var sf stepFailure
			if errors.As(err, &sf) {
				return en.failExecution(ctx, tx, r, se, sf.msg)
			}
			return err
		}
		if err := r.writer(tx).SaveStepExec(ctx, *se); err != nil {
			return err
		}
		if r.x.Status != storage.ExecRunning && r.x.Status != storage.ExecWaiting {
			return nil // EXIT ended it
		}
		if wait {
			return r.writer(tx).SaveExecution(ctx, *r.x)
		}
		stepID = next
	}
	return en.failExecution(ctx, tx, r, nil, "The execution ran more than 256 steps in a row")
}

// stepFailure is a step's own failure: it fails the step and the
// execution and is never retried.
type stepFailure struct{ msg string }

func (f stepFailure) Error() string { return f.msg }

func failStep(format string, args ...any) error {
	return stepFailure{msg: fmt.Sprintf(format, args...)}
}

// startStep runs a step that has just begun. It returns the next step, or
// wait=true when the execution now waits (the step execution then stays
// open) .
func (en *Service) startStep(ctx context.Context, tx *storage.Tx, r *execRun, st storage.WorkflowStep, se *storage.StepExecution) (next string, wait bool, err error) {
	now := en.now()
	complete := func(output any, branch, outcome string) (string, bool, error) {
		se.Output, _ = json.Marshal(output)
		se.Status, se.CompletedAt = storage.StepCompleted, &now
		n, err := en.nextStep(ctx, tx, r, st.ID, branch, outcome)
		return n, false, err
	}
	switch st.Type {
	case StepTrigger:
		return complete(map[string]any{"eventName": r.w.EventName, "eventId": r.x.SourceEventID}, "", "")
	case StepCondition:
		var c ConditionConfig
		_ = json.Unmarshal(st.Config, &c)
		branch, err := en.evalCondition(ctx, tx, r, c)
		if err != nil {
			return "", false, err
		}
		return complete(map[string]any{"branch": branch}, branch, "")
	case StepUpdateContact:
		out, err := en.updateContactStep(ctx, tx, r, st)
		if err != nil {
			return "", false, err
		}
		return complete(out, "", "")
	case StepExit:
		var c ExitConfig
		_ = json.Unmarshal(st.Config, &c)
		reason := c.Reason
		if reason == "" {
			reason = "exit_step"
		}
		se.Output, _ = json.Marshal(map[string]any{"reason": reason})
		se.Status, se.CompletedAt = storage.StepCompleted, &now
		if err := r.writer(tx).SaveStepExec(ctx, *se); err != nil {
			return "", false, err
		}
		return "", false, en.finishExecution(ctx, r.writer(tx), r.w, r.x, storage.ExecExited, reason)
	case StepDelay:
		var c DelayConfig
		_ = json.Unmarshal(st.Config, &c)
		resume := now.Add(c.Duration())
		se.Status, se.ExecuteAfter = storage.StepScheduled, &resume
		se.Output, _ = json.Marshal(map[string]any{"delayAmount": c.Amount, "delayUnit": c.Unit, "resumeAt": resume})
		r.x.Status, r.x.DueAt, r.x.WaitEvent = storage.ExecWaiting, &resume, ""
		return "", true, en.wake(ctx, tx, resume)
	case StepWaitForEvent:
		var c WaitConfig
		_ = json.Unmarshal(st.Config, &c)
		se.Status = storage.StepWaiting
		r.x.Status, r.x.DueAt, r.x.WaitEvent = storage.ExecWaiting, nil, c.EventName
		if c.Timeout != nil {
			until := now.Add(time.Duration(*c.Timeout) * time.Second)
			se.ExecuteAfter, r.x.DueAt = &until, &until
			if err := en.wake(ctx, tx, until); err != nil {
				return "", false, err
			}
		}
		en.changed(tx, r.w.ProjectID) // a name the trigger table may not hold yet
		return "", true, nil
	case StepSendEmail:
		// Rendered and signed outside the write: the run job picks it up.
		r.x.Status, r.x.DueAt, r.x.WaitEvent = storage.ExecRunning, &now, ""
		return "", true, en.wake(ctx, tx, now)
	case StepWebhook:
		r.x.Status, r.x.DueAt, r.x.WaitEvent = storage.ExecRunning, nil, ""
		return "", true, en.enqueueWebhook(ctx, tx, r.x, se)
	}
	return "", false, failStep("Unknown step type %s", st.Type)
}

// resume ends an open step whose outcome is known; done is false while it
// must wait on.
func (en *Service) resume(ctx context.Context, tx *storage.Tx, r *execRun, se *storage.StepExecution, in stepInput) (next string, done bool, err error) {
	now := en.now()
	finish := func(output any, branch, outcome string) (string, bool, error) {
		if output != nil {
			se.Output, _ = json.Marshal(output)
		}
		se.Status, se.CompletedAt = storage.StepCompleted, &now
		if err := r.writer(tx).SaveStepExec(ctx, *se); err != nil {
			return "", false, err
		}
		r.x.Status, r.x.DueAt, r.x.WaitEvent = storage.ExecRunning, nil, ""
		n, err := en.nextStep(ctx, tx, r, se.StepID, branch, outcome)
		return n, true, err
	}
	switch se.Step.Type {
	case StepDelay:
		if se.ExecuteAfter != nil && se.ExecuteAfter.After(now) {
			return "", false, nil
		}
		return finish(nil, "", "")
	case StepWaitForEvent:
		if ev := in.event; ev != nil {
			data, _ := jsondata.Decode(ev.Data)
			vars := r.context()
			for k, v := range data {
				vars[k] = v
			}
			r.saveContext()
			return finish(map[string]any{"waitOutcome": "EVENT", "eventName": ev.Name, "eventId": ev.EventID,
				"eventData": json.RawMessage(ev.Data), "receivedAt": ev.CreatedAt}, "", "EVENT")
		}
		if se.ExecuteAfter == nil || se.ExecuteAfter.After(now) {
			return "", false, nil
		}
		return finish(map[string]any{"waitOutcome": "TIMEOUT"}, "", "TIMEOUT")
	case StepSendEmail:
		m := in.mail
		if m == nil || m.StepExecID != se.ID {
			return "", false, nil
		}
		if m.Failure != "" {
			return "", false, en.failExecution(ctx, tx, r, se, m.Failure)
		}
		if err := en.commitMail(ctx, tx, m); err != nil {
			return "", false, err
		}
		return finish(m.Output, "", "")
	case StepWebhook:
		h := in.hook
		if h == nil || h.stepExecID != se.ID {
			return "", false, nil
		}
		if h.failure != "" {
			se.Output, _ = json.Marshal(h.output)
			return "", false, en.failExecution(ctx, tx, r, se, h.failure)
		}
		return finish(h.output, "", "")
	}
	return "", false, nil
}

// nextStep follows a step's way out: the transition of the branch (a
// CONDITION) or outcome (a WAIT_FOR_EVENT), else the first one by priority.
// "" means none: the execution is done.
func (en *Service) nextStep(ctx context.Context, tx *storage.Tx, r *execRun, stepID, branch, outcome string) (string, error) {
	g, err := r.graph(ctx, tx)
	if err != nil {
		return "", err
	}
	for _, t := range g.Out[stepID] {
		switch {
		case branch != "":
			if t.Branch != nil && *t.Branch == branch {
				return t.ToStepID, nil
			}
		case outcome != "":
			if t.WaitOutcome != nil && *t.WaitOutcome == outcome {
				return t.ToStepID, nil
			}
		default:
			return t.ToStepID, nil
		}
	}
	return "", nil
}

// failExecution fails the open step (if any) and the execution with msg.
func (en *Service) failExecution(ctx context.Context, tx *storage.Tx, r *execRun, se *storage.StepExecution, msg string) error {
	if se != nil {
		now := en.now()
		se.Status, se.Error, se.CompletedAt = storage.StepFailed, &msg, &now
		if err := r.writer(tx).SaveStepExec(ctx, *se); err != nil {
			return err
		}
	}
	return en.finishExecution(ctx, r.writer(tx), r.w, r.x, storage.ExecFailed, msg)
}

// startByHand creates a RUNNING execution of w for c by hand (no source event)
// and wakes the engine, which runs it after the caller's write commits.
func (en *Service) startByHand(ctx context.Context, tx *storage.Tx, w storage.Workflow, c storage.Contact, execCtx json.RawMessage) (storage.Execution, error) {
	x, err := en.newExecution(ctx, tx, w, c, execCtx, nil, nil)
	if err != nil {
		return x, err
	}
	return x, en.wake(ctx, tx, *x.DueAt)
}

// cancel cancels an active execution and its open step executions.
func (en *Service) cancel(ctx context.Context, tx *storage.Tx, w storage.Workflow, x *storage.Execution) error {
	now := en.now()
	if err := tx.CancelOpenStepExecs(ctx, x.ID, now); err != nil {
		return err
	}
	return en.finishExecution(ctx, tx, w, x, storage.ExecCancelled, "cancelled")
}

// finishExecution ends an execution in a final status and records it in
// the activity feed.
func (en *Service) finishExecution(ctx context.Context, out stepWriter, w storage.Workflow, x *storage.Execution, status, reason string) error {
	now := en.now()
	x.Status, x.CompletedAt, x.DueAt, x.WaitEvent = status, &now, nil, ""
	x.ExitReason = nil
	if reason != "" {
		x.ExitReason = &reason
	}
	if err := out.SaveExecution(ctx, *x); err != nil {
		return err
	}
	return en.emitWorkflowEvent(ctx, out, w, *x, "workflow."+strings.ToLower(status))
}

// emitWorkflowEvent records a workflow.* activity item on the contact. The
// engine does not see these events: a workflow cannot start from another's
// lifecycle, which keeps chains of workflows from looping.
func (en *Service) emitWorkflowEvent(ctx context.Context, out stepWriter, w storage.Workflow, x storage.Execution, name string) error {
	// Its fields in key order, the bytes a map of them would encode to.
	data, err := json.Marshal(struct {
		ExecutionID  string `json:"executionId"`
		WorkflowID   string `json:"workflowId"`
		WorkflowName string `json:"workflowName"`
	}{x.ID, w.ID, w.Name})
	if err != nil {
		return err
	}
	// A contact deleted meanwhile leaves the item without its contact.
	return out.InsertEventIfContact(ctx, storage.Event{ID: newID(), ProjectID: x.ProjectID, ContactID: x.ContactID,
		Name: name, Data: data, CreatedAt: en.now()})
}
