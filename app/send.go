package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// SendResult is {emails: [{contact: {id, email}, email}], timestamp}.
type SendResult struct {
	Emails    []SentEmail `json:"emails"`
	Timestamp time.Time   `json:"timestamp"`
}

// SentEmail names one recipient's contact and email.
type SentEmail struct {
	Contact SentContact `json:"contact"`
	Email   string      `json:"email"`
}

// SentContact is the contact an email went to.
type SentContact struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// MaxAttachmentBytes is the default cap on decoded attachments per message.
const MaxAttachmentBytes = 10 << 20

// outgoing is a validated send request, ready to render per recipient.
type outgoing struct {
	projectID   string
	tracking    bool
	to          []message.Address
	from        message.Address
	fromDomain  string
	replyTo     *message.Address
	subject     string
	body        string
	headers     map[string]string
	attachments []message.Attachment
	subscribed  *bool
	data        DataInput
	marketing   bool
	templateID  string
	signer      *dkim.Signer
	test        bool // a campaign's test send: its contact links change nothing
}

// Send sends one message per recipient. Each recipient is handled in turn
// and on its own: its contact upserted (new ones unsubscribed), its message
// rendered, built and signed, then its email row, delivery job and
// email.sent event committed together before the next recipient.
func (a *App) Send(ctx context.Context, project Project, in SendInput) (SendResult, error) {
	out, err := a.prepareSend(ctx, project, in)
	if err != nil {
		return SendResult{}, err
	}
	res := SendResult{Emails: make([]SentEmail, 0, len(out.to))}
	err = a.WithinBillingLimit(ctx, project.ID, UsageTransactional, len(out.to), KindRateLimited, func() error {
		for _, rcpt := range out.to {
			sent, err := a.sendOne(ctx, out, rcpt)
			if err != nil {
				return err
			}
			res.Emails = append(res.Emails, sent)
		}
		return nil
	})
	if err != nil {
		return SendResult{}, err
	}
	res.Timestamp = a.now()
	return res, nil
}

// prepareSend validates the request, applies the template and checks the
// sender's domain.
func (a *App) prepareSend(ctx context.Context, project Project, in SendInput) (*outgoing, error) {
	var v Validation
	out := &outgoing{projectID: project.ID, tracking: project.TrackingEnabled && project.Tracking != "MARKETING_ONLY",
		to: parseRecipients(&v, in.To), subscribed: in.Subscribed, data: ParseData(in.Data), headers: in.Headers}
	tpl, err := a.sendTemplate(ctx, project.ID, in.Template)
	if err != nil {
		return nil, err
	}
	a.applyTemplate(&v, out, tpl, in)
	checkData(&v, "data", in.Data)
	for _, p := range message.ValidateHeaders(in.Headers) {
		v.Add(p.Field, p.Code, p.Message, p.Received)
	}
	out.attachments = decodeAttachments(&v, in.Attachments)
	for _, p := range message.ValidateAttachments(out.attachments, MaxAttachmentBytes) {
		v.Add(p.Field, p.Code, p.Message, p.Received)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	out.fromDomain = domainOf(out.from.Email)
	out.signer, err = a.senderSigner(ctx, project.ID, out.from.Email)
	return out, err
}

func (a *App) sendTemplate(ctx context.Context, projectID string, id *string) (*storage.Template, error) {
	if id == nil || *id == "" {
		return nil, nil
	}
	t, err := storage.TemplateByID(ctx, a.db.Reader(), projectID, *id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, NotFound("TEMPLATE_NOT_FOUND", "Template not found")
	}
	return &t, err
}

// applyTemplate fills subject, body, from and reply-to from the template;
// fields given in the request win.
func (a *App) applyTemplate(v *Validation, out *outgoing, tpl *storage.Template, in SendInput) {
	if tpl != nil {
		out.subject, out.body, out.templateID = tpl.Subject, tpl.Body, tpl.ID
		out.from = message.Address{Email: tpl.From, Name: deref(tpl.FromName)}
		if tpl.ReplyTo != nil && *tpl.ReplyTo != "" {
			out.replyTo = &message.Address{Email: *tpl.ReplyTo}
		}
		out.marketing = tpl.Type == "MARKETING"
	}
	if in.Subject != nil {
		out.subject = *in.Subject
	}
	if in.Body != nil {
		out.body = *in.Body
	}
	switch {
	case in.Subject == nil && tpl == nil:
		v.Add("subject", "invalid_type", "Required", "undefined")
	default:
		checkSubject(v, out.subject)
	}
	if out.body == "" {
		v.Add("body", "too_small", "Body must not be empty (or give a template)", nil)
	}
	a.applySender(v, out, in)
}

func (a *App) applySender(v *Validation, out *outgoing, in SendInput) {
	if len(in.From) > 0 && string(in.From) != "null" {
		from, ok := parseAddress(v, "from", in.From)
		if ok {
			out.from = from
		}
		if out.from.Name == "" && in.Name != nil {
			// The deprecated name goes with a from given as a string.
			out.from.Name = *in.Name
			checkDisplayName(v, "from", out.from.Name)
		}
	}
	if out.from.Email == "" {
		v.Add("from", "invalid_type", "Required unless the template has a from address", "undefined")
	}
	if in.Reply != nil && *in.Reply != "" {
		out.replyTo = &message.Address{Email: checkEmail(v, "reply", *in.Reply)}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func domainOf(email string) string {
	_, d, _ := strings.Cut(email, "@")
	return d
}

// sendOne renders, builds and signs one recipient's message outside the
// write lock (RSA signing takes a millisecond or two), then commits it.
func (a *App) sendOne(ctx context.Context, out *outgoing, rcpt message.Address) (SentEmail, error) {
	email := rcpt.Email
	contactID, stored, found, err := a.contactPreview(ctx, out.projectID, email)
	if err != nil {
		return SentEmail{}, err
	}
	out.data.Apply(stored)
	vars, err := a.renderVars(ctx, out.projectID, contactID, email, out.data.Vars(stored))
	if err != nil {
		return SentEmail{}, err
	}
	e := storage.Email{ID: newID(), ProjectID: out.projectID, TemplateID: out.templateID,
		MessageID: message.NewMessageID(out.fromDomain), Sender: out.from.Email, Recipient: email,
		Marketing: out.marketing, Status: storage.EmailPending, CreatedAt: a.now()}
	if err = a.compose(ctx, out, rcpt, &e, vars); err != nil {
		return SentEmail{}, err
	}
	var contact storage.Contact
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		change, err := a.upsertContact(ctx, tx, out.projectID, contactUpsert{email: email, id: contactID,
			subscribed: out.subscribed, newSubscribed: false, data: out.data, reason: ReasonAPI, unseen: !found})
		if err != nil {
			return err
		}
		contact, e.ContactID = change.contact, change.contact.ID
		return a.queueEmail(ctx, tx, e)
	})
	return SentEmail{Contact: SentContact{ID: contact.ID, Email: contact.Email}, Email: e.ID}, err
}

// queueEmail stores an email, its delivery job and its email.sent event,
// and once they are committed hands the bytes to the first attempt.
func (a *App) queueEmail(ctx context.Context, tx *storage.Tx, e storage.Email) error {
	if err := tx.InsertEmail(ctx, e); err != nil {
		return err
	}
	tx.OnCommit(func() { a.handoff.put(e.ID, e.Raw, e.CreatedAt) })
	if _, err := a.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobDeliver, ProjectID: e.ProjectID,
		Payload: deliveryPayload{EmailID: e.ID}}); err != nil {
		return err
	}
	return a.emitEmailEvent(ctx, tx, e, EventSent, map[string]any{"openTracked": e.OpenTracked})
}

// contactPreview returns the recipient's contact id (a new one if the
// contact does not exist yet) and stored data, for rendering, and whether
// it found the contact.
func (a *App) contactPreview(ctx context.Context, projectID, email string) (string, map[string]any, bool, error) {
	c, err := storage.ContactByEmail(ctx, a.db.Reader(), projectID, email)
	if errors.Is(err, storage.ErrNotFound) {
		return newID(), map[string]any{}, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	data, err := jsondata.Decode(c.Data)
	return c.ID, data, true, err
}

// renderVars adds the values Herald fills in itself to the contact's data.
func (a *App) renderVars(ctx context.Context, projectID, contactID, email string, vars map[string]any) (map[string]any, error) {
	return a.renderVarsLinking(ctx, projectID, contactID, contactID, email, vars)
}

// renderVarsLinking is renderVars with the contact links naming linkID
// (testSendContact in a test send).
func (a *App) renderVarsLinking(ctx context.Context, projectID, contactID, linkID, email string, vars map[string]any) (map[string]any, error) {
	links, err := a.contactLinks(ctx, projectID, linkID)
	if err != nil {
		return nil, err
	}
	vars["id"], vars["herald_id"] = contactID, contactID
	vars["email"], vars["herald_email"] = email, email
	vars["unsubscribeUrl"], vars["subscribeUrl"], vars["manageUrl"] = links.Unsubscribe, links.Subscribe, links.Manage
	return vars, nil
}

// compose renders the subject and body, adds tracking, builds the MIME
// message and signs it, filling the email's subject, links and bytes.
func (a *App) compose(ctx context.Context, out *outgoing, rcpt message.Address, e *storage.Email, vars map[string]any) error {
	subject, err := a.renderer.Render(ctx, out.subject, vars, render.Header)
	if err != nil {
		return renderFailure(ctx, "subject", err)
	}
	var html, text string
	if message.LooksLikeHTML(out.body) {
		html, err = a.renderer.Render(ctx, out.body, vars, render.HTML)
	} else { // plain text: its lines are kept, in the text part and as <br>
		if text, err = a.renderer.Render(ctx, out.body, vars, render.Text); err == nil {
			html = message.TextToHTML(text)
		}
	}
	if err != nil {
		return renderFailure(ctx, "body", err)
	}
	if out.tracking {
		if html, e.Links, err = a.instrument(ctx, e.ID, html); err != nil {
			return err
		}
		e.OpenTracked = true
	}
	m := message.Message{From: out.from, To: []message.Address{rcpt}, ReplyTo: out.replyTo, Subject: subject,
		HTML: html, Text: text, Headers: out.headers, Attachments: out.attachments, MessageID: e.MessageID, Date: e.CreatedAt}
	if out.marketing {
		m.ListUnsubscribe, _ = vars["unsubscribeUrl"].(string)
	}
	raw, err := message.Build(m)
	if err != nil {
		return messageError(err)
	}
	e.Subject = subject
	e.Raw, err = out.signer.Sign(out.fromDomain, raw)
	if err != nil {
		return err
	}
	a.metrics.Signed()
	e.Pack() // here, on the caller's core, not inside the write
	return nil
}

// messageError turns a refusal of the message builder into a 422 (or 413
// for a message over 40 MB).
func messageError(err error) error {
	var inv *message.InvalidError
	if errors.As(err, &inv) {
		var v Validation
		for _, p := range inv.Problems {
			v.Add(p.Field, p.Code, p.Message, p.Received)
		}
		return v.Err()
	}
	if errors.Is(err, message.ErrTooLarge) {
		return &Error{Kind: KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "The message is larger than 40 MB"}
	}
	return err
}
