package messaging

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/verify"
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
type Outgoing struct {
	ProjectID   string
	Tracking    bool
	To          []message.Address
	From        message.Address
	FromDomain  string
	ReplyTo     *message.Address
	Subject     string
	Body        string
	Headers     map[string]string
	Attachments []message.Attachment
	Subscribed  *bool
	Data        audience.DataInput
	Marketing   bool
	TemplateID  string
	Signer      *dkim.Signer
	Test        bool // a campaign's test send: its contact links change nothing
}

// Send sends one message per recipient. Each recipient is handled in turn
// and on its own: its contact upserted (new ones unsubscribed), its message
// rendered, built and signed, then its email row, delivery job and
// email.sent event committed together before the next recipient.
func (s *Service) Send(ctx context.Context, project accounts.Project, in SendInput) (_ SendResult, err error) {
	defer apierr.Wrap(&err, "messaging.Send")
	out, err := s.prepareSend(ctx, project, in)
	if err != nil {
		return SendResult{}, err
	}
	res := SendResult{Emails: make([]SentEmail, 0, len(out.To))}
	err = s.accounts.WithinBillingLimit(ctx, project.ID, accounts.UsageTransactional, len(out.To), apierr.KindRateLimited, func() error {
		for _, rcpt := range out.To {
			sent, err := s.sendOne(ctx, out, rcpt)
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
	res.Timestamp = s.now()
	return res, nil
}

// prepareSend validates the request, applies the template and checks the
// sender's domain.
func (s *Service) prepareSend(ctx context.Context, project accounts.Project, in SendInput) (*Outgoing, error) {
	var v apierr.Validation
	out := &Outgoing{ProjectID: project.ID, Tracking: sendTracking(project),
		To: parseRecipients(&v, in.To), Subscribed: in.Subscribed, Data: audience.ParseData(in.Data), Headers: in.Headers}
	tpl, err := s.sendTemplate(ctx, project.ID, in.Template)
	if err != nil {
		return nil, err
	}
	s.applyTemplate(&v, out, tpl, in)
	audience.CheckData(&v, "data", in.Data)
	for _, p := range message.ValidateHeaders(in.Headers) {
		v.Add(p.Field, p.Code, p.Message, p.Received)
	}
	out.Attachments = decodeAttachments(&v, in.Attachments)
	for _, p := range message.ValidateAttachments(out.Attachments, MaxAttachmentBytes) {
		v.Add(p.Field, p.Code, p.Message, p.Received)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	out.FromDomain = DomainOf(out.From.Email)
	out.Signer, err = s.senders.SenderSigner(ctx, project.ID, out.From.Email)
	return out, err
}

// sendTracking reports whether the project's settings track /v1/send's
// mail (and SMTP submission's): tracking on, and not for campaigns only.
func sendTracking(p accounts.Project) bool {
	return p.TrackingEnabled && p.Tracking != "MARKETING_ONLY"
}

func (s *Service) sendTemplate(ctx context.Context, projectID string, id *string) (*storage.Template, error) {
	if id == nil || *id == "" {
		return nil, nil
	}
	t, err := storage.TemplateByID(ctx, s.db.Reader(), projectID, *id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, apierr.NotFound("TEMPLATE_NOT_FOUND", "Template not found")
	}
	return &t, err
}

// applyTemplate fills subject, body, from and reply-to from the template;
// fields given in the request win.
func (s *Service) applyTemplate(v *apierr.Validation, out *Outgoing, tpl *storage.Template, in SendInput) {
	if tpl != nil {
		out.Subject, out.Body, out.TemplateID = tpl.Subject, tpl.Body, tpl.ID
		out.From = message.Address{Email: tpl.From, Name: Deref(tpl.FromName)}
		if tpl.ReplyTo != nil && *tpl.ReplyTo != "" {
			out.ReplyTo = &message.Address{Email: *tpl.ReplyTo}
		}
		out.Marketing = tpl.Type == "MARKETING"
	}
	if in.Subject != nil {
		out.Subject = *in.Subject
	}
	if in.Body != nil {
		out.Body = *in.Body
	}
	switch {
	case in.Subject == nil && tpl == nil:
		v.Add("subject", "invalid_type", "Required", "undefined")
	default:
		CheckSubject(v, out.Subject)
	}
	if out.Body == "" {
		v.Add("body", "too_small", "Body must not be empty (or give a template)", nil)
	}
	s.applySender(v, out, in)
}

func (s *Service) applySender(v *apierr.Validation, out *Outgoing, in SendInput) {
	if len(in.From) > 0 && string(in.From) != "null" {
		from, ok := parseAddress(v, "from", in.From)
		if ok {
			out.From = from
		}
		if out.From.Name == "" && in.Name != nil {
			// The deprecated name goes with a from given as a string.
			out.From.Name = *in.Name
			checkDisplayName(v, "from", out.From.Name)
		}
	}
	if out.From.Email == "" {
		v.Add("from", "invalid_type", "Required unless the template has a from address", "undefined")
	}
	if in.Reply != nil && *in.Reply != "" {
		out.ReplyTo = &message.Address{Email: verify.CheckEmail(v, "reply", *in.Reply)}
	}
}

func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func DomainOf(email string) string {
	_, d, _ := strings.Cut(email, "@")
	return d
}

// sendOne renders, builds and signs one recipient's message outside the
// write lock (RSA signing takes a millisecond or two), then commits it.
func (s *Service) sendOne(ctx context.Context, out *Outgoing, rcpt message.Address) (SentEmail, error) {
	email := rcpt.Email
	contactID, stored, found, err := s.contactPreview(ctx, out.ProjectID, email)
	if err != nil {
		return SentEmail{}, err
	}
	out.Data.Apply(stored)
	vars, err := s.RenderVars(ctx, out.ProjectID, contactID, email, out.Data.Vars(stored))
	if err != nil {
		return SentEmail{}, err
	}
	e := storage.Email{ID: ids.New(), ProjectID: out.ProjectID, TemplateID: out.TemplateID,
		MessageID: message.NewMessageID(out.FromDomain), Sender: out.From.Email, Recipient: email,
		Marketing: out.Marketing, Status: storage.EmailPending, Source: storage.SourceAPI, CreatedAt: s.now()}
	if err = s.Compose(ctx, out, rcpt, &e, vars); err != nil {
		return SentEmail{}, err
	}
	contact, err := s.commitRecipient(ctx, audience.ContactUpsert{Email: email, ID: contactID,
		Subscribed: out.Subscribed, NewSubscribed: false, Data: out.Data, Reason: event.ReasonAPI, Unseen: !found}, &e)
	return SentEmail{Contact: SentContact{ID: contact.ID, Email: contact.Email}, Email: e.ID}, err
}

// commitRecipient is the write every one-recipient send path ends with
// (/v1/send, SMTP submission): the recipient's contact created or found,
// then its email queued (QueueEmail), committed together.
func (s *Service) commitRecipient(ctx context.Context, c audience.ContactUpsert, e *storage.Email) (storage.Contact, error) {
	var contact storage.Contact
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		change, err := s.audience.UpsertInTx(ctx, tx, e.ProjectID, c)
		if err != nil {
			return err
		}
		contact, e.ContactID = change.Contact, change.Contact.ID
		return s.QueueEmail(ctx, tx, *e)
	})
	return contact, err
}

// queueEmail stores an email, its delivery job and its email.sent event,
// and once they are committed hands the bytes to the first attempt.
func (s *Service) QueueEmail(ctx context.Context, tx *storage.Tx, e storage.Email) (err error) {
	defer apierr.Wrap(&err, "messaging.QueueEmail")
	if err := tx.InsertEmail(ctx, e); err != nil {
		return err
	}
	tx.OnCommit(func() { s.handoff.Put(e.ID, e.Raw, e.CreatedAt) })
	if _, err := s.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobDeliver, ProjectID: e.ProjectID,
		Payload: deliveryPayload{EmailID: e.ID}}); err != nil {
		return err
	}
	return s.EmitEmailEvent(ctx, tx, e, event.EventSent, map[string]any{"openTracked": e.OpenTracked})
}

// contactPreview returns the recipient's contact id (a new one if the
// contact does not exist yet) and stored data, for rendering, and whether
// it found the contact.
func (s *Service) contactPreview(ctx context.Context, projectID, email string) (string, map[string]any, bool, error) {
	c, err := storage.ContactByEmail(ctx, s.db.Reader(), projectID, email)
	if errors.Is(err, storage.ErrNotFound) {
		return ids.New(), map[string]any{}, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	data, err := jsondata.Decode(c.Data)
	return c.ID, data, true, err
}

// renderVars adds the values Herald fills in itself to the contact's data.
func (s *Service) RenderVars(ctx context.Context, projectID, contactID, email string, vars map[string]any) (_ map[string]any, err error) {
	defer apierr.Wrap(&err, "messaging.RenderVars")
	return s.RenderVarsLinking(ctx, projectID, contactID, contactID, email, vars)
}

// renderVarsLinking is renderVars with the contact links naming linkID
// (testSendContact in a test send).
func (s *Service) RenderVarsLinking(ctx context.Context, projectID, contactID, linkID, email string, vars map[string]any) (_ map[string]any, err error) {
	defer apierr.Wrap(&err, "messaging.RenderVarsLinking")
	links, err := s.tracking.ContactLinks(ctx, projectID, linkID)
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
func (s *Service) Compose(ctx context.Context, out *Outgoing, rcpt message.Address, e *storage.Email, vars map[string]any) (err error) {
	defer apierr.Wrap(&err, "messaging.Compose")
	subject, err := s.renderer.Render(ctx, out.Subject, vars, render.Header)
	if err != nil {
		return renderFailure(ctx, "subject", err)
	}
	var html, text string
	if message.LooksLikeHTML(out.Body) {
		html, err = s.renderer.Render(ctx, out.Body, vars, render.HTML)
	} else { // plain text: its lines are kept, in the text part and as <br>
		if text, err = s.renderer.Render(ctx, out.Body, vars, render.Text); err == nil {
			html = message.TextToHTML(text)
		}
	}
	if err != nil {
		return renderFailure(ctx, "body", err)
	}
	if out.Tracking {
		if html, e.Links, err = s.tracking.Instrument(ctx, e.ID, html); err != nil {
			return err
		}
		e.OpenTracked = true
	}
	m := message.Message{From: out.From, To: []message.Address{rcpt}, ReplyTo: out.ReplyTo, Subject: subject,
		HTML: html, Text: text, Headers: out.Headers, Attachments: out.Attachments, MessageID: e.MessageID, Date: e.CreatedAt}
	if out.Marketing {
		m.ListUnsubscribe, _ = vars["unsubscribeUrl"].(string)
	}
	raw, err := message.Build(m)
	if err != nil {
		return messageError(err)
	}
	e.Subject = subject
	e.Raw, err = out.Signer.Sign(out.FromDomain, raw)
	if err != nil {
		return err
	}
	s.metrics.Signed()
	e.Pack() // here, on the caller's core, not inside the write
	return nil
}

// messageError turns a refusal of the message builder into a 422 (or 413
// for a message over 40 MB).
func messageError(err error) error {
	var inv *message.InvalidError
	if errors.As(err, &inv) {
		var v apierr.Validation
		for _, p := range inv.Problems {
			v.Add(p.Field, p.Code, p.Message, p.Received)
		}
		return v.Err()
	}
	if errors.Is(err, message.ErrTooLarge) {
		return &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "The message is larger than 40 MB"}
	}
	return err
}
