package app

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/storage"
)

// PrepareMail renders a step's template as /v1/send would: the contact's
// data and Herald's own variables, plus the execution's context as
// event.<key>. A missing template or contact, an unverified sender domain
// or a render error is the step's failure, not an error to retry.
func (h workflowHost) PrepareMail(ctx context.Context, x storage.Execution, se storage.StepExecution) (*workflow.Mail, error) {
	r := h.a.db.Reader()
	m := &workflow.Mail{StepExecID: se.ID}
	fail := func(msg string) (*workflow.Mail, error) {
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
	var c workflow.SendEmailConfig
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
		Sender: out.from.Email, Recipient: to, Marketing: out.marketing, Status: storage.EmailPending, CreatedAt: h.a.now()}
	if !custom {
		e.ContactID = contact.ID
	}
	m.Output = map[string]any{"emailId": e.ID, "to": to, "templateId": tpl.ID, "status": "SENT"}
	if !custom && out.marketing && !contact.Subscribed {
		e.Status, e.Subject = storage.EmailFailed, tpl.Subject
		m.Email = e
		m.Output["status"], m.Output["reason"] = "FAILED", "The contact is unsubscribed from marketing email"
		return m, nil
	}
	if out.signer, err = h.a.senderSigner(ctx, x.ProjectID, out.from.Email); err != nil {
		if ae, ok := AsError(err); ok {
			return fail("Sender domain of " + out.from.Email + " is not verified: " + ae.Message)
		}
		return nil, err
	}
	data, err := jsondata.Decode(contact.Data)
	if err != nil {
		return nil, err
	}
	vars, err := h.a.renderVars(ctx, x.ProjectID, contact.ID, contact.Email, data)
	if err != nil {
		return nil, err
	}
	if custom {
		// The contact's own links must not reach someone else.
		vars["unsubscribeUrl"], vars["subscribeUrl"], vars["manageUrl"] = "", "", ""
	}
	execVars, _ := jsondata.Decode(x.Context)
	vars["event"] = execVars
	if err := h.a.compose(ctx, out, message.Address{Email: to}, &e, vars); err != nil {
		if ae, ok := AsError(err); ok {
			return fail("The email could not be rendered: " + ae.Message)
		}
		return nil, err
	}
	m.Email, m.Queue = e, true
	return m, nil
}
