package messaging

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/smtpin"
	"github.com/heraldmail/herald/storage"
)

// submitted is a submitted message checked for sending: what each
// recipient's copy is made from.
type submitted struct {
	projectID  string
	msg        *message.Submitted
	from       string // the From field's first address, normalised: the email's sender
	fromDomain string
	signer     *dkim.Signer
	tracking   bool
	// messageID is the client's Message-ID as stored ("<id@host>"), or ""
	// when it has none, or one Herald cannot key the email by.
	messageID string
}

// Submit makes one email per envelope recipient, each exactly as one
// /v1/send recipient, and returns their ids in recipient order once they
// are committed. Everything a client can get wrong is checked before the
// first email is committed (an error answer makes it send the whole
// message again): the message, its From field, every recipient, the
// billing cap. A recipient named twice gets one email, whose id is given
// for both; a recipient that already has this message (same Message-ID,
// sent again after a lost 250) gets its email's id and no new one.
func (sd *submissionSender) Submit(ctx context.Context, env smtpin.Envelope, raw []byte) (_ []string, err error) {
	defer apierr.Wrap(&err, "messaging.Submitter.Submit")
	s := sd.s
	p, err := s.authenticateKey(ctx, sd.key)
	if errors.Is(err, smtpin.ErrBadKey) || (err == nil && p.ID != sd.projectID) {
		return nil, errKeyGone
	}
	if err != nil {
		return nil, err
	}
	sub, err := s.checkSubmitted(ctx, p, raw)
	if err != nil {
		return nil, err
	}
	rcpts, err := submissionRecipients(env.To)
	if err != nil {
		return nil, err
	}
	emailIDs := make(map[string]string, len(rcpts)) // recipient -> its email
	var fresh []freshRecipient
	for _, rcpt := range rcpts {
		if _, dup := emailIDs[rcpt]; dup {
			continue
		}
		id, foreign, err := s.alreadySubmitted(ctx, sub, rcpt)
		if err != nil {
			return nil, err
		}
		emailIDs[rcpt] = id
		if id == "" {
			fresh = append(fresh, freshRecipient{rcpt, foreign})
		}
	}
	err = s.accounts.WithinBillingLimit(ctx, p.ID, accounts.UsageTransactional, len(fresh), apierr.KindRateLimited, func() error {
		for _, r := range fresh {
			id, err := s.submitOne(ctx, sub, r)
			if err != nil {
				return err
			}
			emailIDs[r.address] = id
		}
		return nil
	})
	if err != nil {
		return nil, billingRejection(err)
	}
	out := make([]string, len(rcpts))
	for i, rcpt := range rcpts {
		out[i] = emailIDs[rcpt]
	}
	return out, nil
}

// checkSubmitted parses the message and checks what /v1/send checks of a
// request: every From address at a verified domain of the project.
func (s *Service) checkSubmitted(ctx context.Context, p accounts.Project, raw []byte) (*submitted, error) {
	msg, err := message.ParseSubmitted(raw)
	switch {
	case errors.Is(err, message.ErrTooLarge):
		return nil, rejection(smtpin.RejectMessage, "The message is larger than 40 MB")
	case err != nil:
		return nil, rejection(smtpin.RejectMessage, strings.TrimPrefix(err.Error(), message.ErrInvalidSubmission.Error()+": "))
	}
	sub := &submitted{projectID: p.ID, msg: msg, tracking: sendTracking(p),
		from: verify.NormalizeEmail(msg.From().Email), messageID: storedMessageID(msg.MessageID())}
	sub.fromDomain = DomainOf(sub.from)
	for _, a := range msg.FromAll()[1:] {
		if _, err := s.senders.SenderSigner(ctx, p.ID, a.Email); err != nil {
			return nil, senderRejection(err)
		}
	}
	if sub.signer, err = s.senders.SenderSigner(ctx, p.ID, sub.from); err != nil {
		return nil, senderRejection(err)
	}
	return sub, nil
}

// submissionRecipients checks and normalises the envelope's recipients as
// /v1/send checks `to`: at most 50, each a valid address.
func submissionRecipients(to []string) ([]string, error) {
	if len(to) == 0 || len(to) > MaxRecipients {
		return nil, rejection(smtpin.RejectRecipient, fmt.Sprintf("A message takes 1 to %d recipients", MaxRecipients))
	}
	out := make([]string, len(to))
	for i, raw := range to {
		var v apierr.Validation
		if out[i] = verify.CheckEmail(&v, "to", raw); v.Err() != nil {
			return nil, rejection(smtpin.RejectRecipient, "Invalid recipient address <"+raw+">")
		}
	}
	return out, nil
}

// maxStoredMessageID bounds a client's Message-ID that Herald keys an
// email by; a longer one is sent as written, and the email is keyed by
// one of Herald's.
const maxStoredMessageID = 250

// storedMessageID is the client's Message-ID as emails.message_id keeps
// it, "<id@host>", or "" when it has none or it is not of that form.
func storedMessageID(v string) string {
	if len(v) < 3 || len(v) > maxStoredMessageID || v[0] != '<' || v[len(v)-1] != '>' ||
		strings.ContainsAny(v[1:len(v)-1], "<> \t\r\n") {
		return ""
	}
	return v
}

// freshRecipient is a recipient that gets a new email. foreign: another
// project's email has the client's Message-ID for this address, so this
// one is keyed by one of Herald's (the message keeps the client's).
type freshRecipient struct {
	address string
	foreign bool
}

// alreadySubmitted returns the email of the project that already carries
// this message (its Message-ID) to rcpt, or "" and whether another
// project's does.
func (s *Service) alreadySubmitted(ctx context.Context, sub *submitted, rcpt string) (id string, foreign bool, err error) {
	if sub.messageID == "" {
		return "", false, nil
	}
	e, err := storage.EmailByMessageIDTo(ctx, s.db.Reader(), sub.messageID, rcpt)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, err
	case e.ProjectID != sub.projectID:
		return "", true, nil
	}
	return e.ID, false, nil
}

// submitOne makes, signs and commits one recipient's email: the contact
// created or found (a new one unsubscribed, as /v1/send makes it), the
// client's message with Herald's fields and, with tracking on, Herald's
// links and pixel in its HTML part, then the email with its delivery job
// and email.sent event in one write (commitRecipient, /v1/send's).
func (s *Service) submitOne(ctx context.Context, sub *submitted, r freshRecipient) (string, error) {
	rcpt := r.address
	contactID, _, found, err := s.contactPreview(ctx, sub.projectID, rcpt)
	if err != nil {
		return "", err
	}
	e := storage.Email{ID: ids.New(), ProjectID: sub.projectID, MessageID: sub.messageID, Sender: sub.from,
		Recipient: rcpt, Subject: sub.msg.Subject(), Marketing: sub.msg.Marketing(), Status: storage.EmailPending,
		Source: storage.SourceSMTP, CreatedAt: s.now()}
	if e.MessageID == "" || r.foreign {
		e.MessageID = message.NewMessageID(sub.fromDomain)
	}
	opts := message.SubmitOptions{MessageID: e.MessageID, Date: e.CreatedAt}
	if sub.msg.Marketing() {
		links, err := s.tracking.ContactLinks(ctx, sub.projectID, contactID)
		if err != nil {
			return "", err
		}
		opts.ListUnsubscribe = links.Unsubscribe
	}
	if sub.tracking {
		opts.RewriteHTML = s.trackFirstHTML(ctx, &e)
	}
	prepared, err := sub.msg.Prepare(opts)
	if errors.Is(err, message.ErrTooLarge) {
		return "", rejection(smtpin.RejectMessage, "The message is larger than 40 MB once its links are tracked")
	}
	if err != nil {
		return "", err
	}
	if e.Raw, err = sub.signer.Sign(sub.fromDomain, prepared); err != nil {
		return "", err
	}
	s.metrics.Signed()
	e.Pack() // here, on the session's core, not inside the write
	_, err = s.commitRecipient(ctx, audience.ContactUpsert{Email: rcpt, ID: contactID, NewSubscribed: false,
		Reason: event.ReasonAPI, Unseen: !found}, &e)
	return e.ID, err
}

// trackFirstHTML rewrites the links of the message's first HTML part into
// Herald's click redirects and adds the open pixel, as /v1/send does to
// its HTML. Click tokens number the email's links, so one part is
// tracked: the first, the one a reader sees (a multipart/alternative
// holds one HTML part; a second HTML body is rare and stays as written).
func (s *Service) trackFirstHTML(ctx context.Context, e *storage.Email) func(string) (string, error) {
	return func(html string) (string, error) {
		if e.OpenTracked {
			return html, nil
		}
		out, links, err := s.tracking.Instrument(ctx, e.ID, html)
		if err != nil {
			return "", err
		}
		e.Links, e.OpenTracked = links, true
		return out, nil
	}
}
