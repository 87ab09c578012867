package workflow

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/storage"
)

// PrepareMail renders a step's template as /v1/send would: the contact's
// data and Herald's own variables, plus the execution's context as
// event.<key>. A missing template or contact, an unverified sender domain
// or a render error is the step's failure, not an error to retry.
func (en *Service) prepareMail(ctx context.Context, x storage.Execution, se storage.StepExecution) (*Mail, error) {
	r := en.db.Reader()
	m := &Mail{StepExecID: se.ID}
	fail := func(msg string) (*Mail, error) {
		m.Failure = msg
		return m, nil
	}
	st, err := storage.StepByID(ctx, r, se.StepID)
	if errors.Is(err, storage.ErrNotFound) {
		return fail("The step was deleted before its email was sent")
	}
	if err != nil {
		return nil, err
	}
	var c SendEmailConfig
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
	out := &messaging.Outgoing{ProjectID: x.ProjectID, Tracking: project.TrackingEnabled, Subject: tpl.Subject, Body: tpl.Body,
		TemplateID: tpl.ID, From: message.Address{Email: tpl.From, Name: messaging.Deref(tpl.FromName)}, Marketing: tpl.Type == "MARKETING"}
	if tpl.ReplyTo != nil && *tpl.ReplyTo != "" {
		out.ReplyTo = &message.Address{Email: *tpl.ReplyTo}
	}
	out.FromDomain = messaging.DomainOf(out.From.Email)
	e := storage.Email{ID: ids.New(), ProjectID: x.ProjectID, TemplateID: tpl.ID, WorkflowID: x.WorkflowID,
		WorkflowExecutionID: x.ID, WorkflowStepExecutionID: se.ID, MessageID: message.NewMessageID(out.FromDomain),
		Sender: out.From.Email, Recipient: to, Marketing: out.Marketing, Status: storage.EmailPending, CreatedAt: en.now()}
	if !custom {
		e.ContactID = contact.ID
	}
	m.Output = map[string]any{"emailId": e.ID, "to": to, "templateId": tpl.ID, "status": "SENT"}
	if !custom && out.Marketing && !contact.Subscribed {
		e.Status, e.Subject = storage.EmailFailed, tpl.Subject
		m.Email = e
		m.Output["status"], m.Output["reason"] = "FAILED", "The contact is unsubscribed from marketing email"
		return m, nil
	}
	if out.Signer, err = en.senders.SenderSigner(ctx, x.ProjectID, out.From.Email); err != nil {
		if ae, ok := apierr.AsError(err); ok {
			return fail("Sender domain of " + out.From.Email + " is not verified: " + ae.Message)
		}
		return nil, err
	}
	data, err := jsondata.Decode(contact.Data)
	if err != nil {
		return nil, err
	}
	vars, err := en.messaging.RenderVars(ctx, x.ProjectID, contact.ID, contact.Email, data)
	if err != nil {
		return nil, err
	}
	if custom {
		// The contact's own links must not reach someone else.
		vars["unsubscribeUrl"], vars["subscribeUrl"], vars["manageUrl"] = "", "", ""
	}
	execVars, _ := jsondata.Decode(x.Context)
	vars["event"] = execVars
	if err := en.messaging.Compose(ctx, out, message.Address{Email: to}, &e, vars); err != nil {
		if ae, ok := apierr.AsError(err); ok {
			return fail("The email could not be rendered: " + ae.Message)
		}
		return nil, err
	}
	m.Email, m.Queue = e, true
	return m, nil
}
