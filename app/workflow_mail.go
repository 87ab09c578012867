package app

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/storage"
)

// preparedMail is a SEND_EMAIL step's email, rendered, built and signed
// outside the write, or the reason the step fails.
type preparedMail struct {
	stepExecID string
	email      storage.Email
	queue      bool // false: only record the email as FAILED (unsubscribed contact)
	output     map[string]any
	failure    string
}

// prepareMails prepares the emails of the due executions that stand at a
// SEND_EMAIL step; only those are read in full.
func (a *App) prepareMails(ctx context.Context, refs []storage.DueRef) (map[string]*preparedMail, error) {
	out := map[string]*preparedMail{}
	var ids []string
	for _, d := range refs {
		if d.StepType == StepSendEmail {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	r := a.db.Reader()
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
		m, err := a.prepareMail(ctx, x, se)
		if err != nil {
			return nil, err
		}
		out[x.ID] = m
	}
	return out, nil
}

// prepareMail renders a step's template as /v1/send would: the contact's
// data and Herald's own variables, plus the execution's context as
// event.<key>. A missing template or contact, an unverified sender domain
// or a render error is the step's failure, not an error to retry.
func (a *App) prepareMail(ctx context.Context, x storage.Execution, se storage.StepExecution) (*preparedMail, error) {
	r := a.db.Reader()
	m := &preparedMail{stepExecID: se.ID}
	fail := func(msg string) (*preparedMail, error) {
		m.failure = msg
		return m, nil
	}
	st, err := storage.StepByID(ctx, r, se.StepID)
	if errors.Is(err, storage.ErrNotFound) {
		return fail("The step was deleted before its email was sent")
	}
	if err != nil {
		return nil, err
	}
	var c sendEmailConfig
	_ = json.Unmarshal(st.Config, &c)
	tpl, err := storage.TemplateByID(ctx, r, x.ProjectID, c.TemplateID)
	if errors.Is(err, storage.ErrNotFound) {
		return fail("Template " + c.TemplateID + " not found")
	}
	if err != nil {
		return nil, err
	}
	contact, err := storage.ContactByID(ctx, r, x.ProjectID, x.ContactID)
	if errors.Is(err, storage.ErrNotFound) {
		return fail("Contact " + x.ContactID + " was deleted")
	}
	if err != nil {
		return nil, err
	}
	project, err := storage.ProjectByID(ctx, r, x.ProjectID)
	if err != nil {
		return nil, err
	}
	custom := c.Recipient != nil && c.Recipient.Type == "CUSTOM"
	to := contact.Email
	if custom {
		to = c.Recipient.CustomEmail
	}
	out := &outgoing{projectID: x.ProjectID, tracking: project.TrackingEnabled, subject: tpl.Subject, body: tpl.Body,
		templateID: tpl.ID, from: message.Address{Email: tpl.From, Name: deref(tpl.FromName)}, marketing: tpl.Type == "MARKETING"}
	if tpl.ReplyTo != nil && *tpl.ReplyTo != "" {
		out.replyTo = &message.Address{Email: *tpl.ReplyTo}
	}
	out.fromDomain = domainOf(out.from.Email)
	e := storage.Email{ID: newID(), ProjectID: x.ProjectID, TemplateID: tpl.ID, WorkflowID: x.WorkflowID,
		WorkflowExecutionID: x.ID, WorkflowStepExecutionID: se.ID, MessageID: message.NewMessageID(out.fromDomain),
		Sender: out.from.Email, Recipient: to, Marketing: out.marketing, Status: storage.EmailPending, CreatedAt: a.now()}
	if !custom {
		e.ContactID = contact.ID
	}
	m.output = map[string]any{"emailId": e.ID, "to": to, "templateId": tpl.ID, "status": "SENT"}
	if !custom && out.marketing && !contact.Subscribed {
		e.Status, e.Subject = storage.EmailFailed, tpl.Subject
		m.email = e
		m.output["status"], m.output["reason"] = "FAILED", "The contact is unsubscribed from marketing email"
		return m, nil
	}
	if out.signer, err = a.senderSigner(ctx, x.ProjectID, out.from.Email); err != nil {
		if ae, ok := AsError(err); ok {
			return fail("Sender domain of " + out.from.Email + " is not verified: " + ae.Message)
		}
		return nil, err
	}
	data, err := decodeData(contact.Data)
	if err != nil {
		return nil, err
	}
	vars, err := a.renderVars(ctx, x.ProjectID, contact.ID, contact.Email, data)
	if err != nil {
		return nil, err
	}
	if custom {
		// The contact's own links must not reach someone else.
		vars["unsubscribeUrl"], vars["subscribeUrl"], vars["manageUrl"] = "", "", ""
	}
	execVars, _ := decodeData(x.Context)
	vars["event"] = execVars
	if err := a.compose(ctx, out, message.Address{Email: to}, &e, vars); err != nil {
		if ae, ok := AsError(err); ok {
			return fail("The email could not be rendered: " + ae.Message)
		}
		return nil, err
	}
	m.email, m.queue = e, true
	return m, nil
}

// commitMail stores a prepared email in the step's write: queued for
// delivery with its email.sent event, or recorded FAILED.
func (a *App) commitMail(ctx context.Context, tx *storage.Tx, m *preparedMail) error {
	if m.queue {
		return a.queueEmail(ctx, tx, m.email)
	}
	return tx.InsertEmail(ctx, m.email)
}
