package notify

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"net/mail"
	"strings"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/platformmail"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

var platformTemplates = template.Must(template.ParseFS(platformmail.FS, "*.html"))

// systemSender is the parsed From of platform mail and the project whose
// verified domain signs it; ok is false when there is none.
type systemSender struct {
	from      message.Address
	domain    string
	projectID string
}

func (s *Service) systemSender(ctx context.Context) (systemSender, bool) {
	if s.systemFrom == "" {
		return systemSender{}, false
	}
	addr, err := mail.ParseAddress(s.systemFrom)
	if err != nil {
		return systemSender{}, false
	}
	domain, ok := verify.AddressDomain(addr.Address)
	if !ok {
		return systemSender{}, false
	}
	name, err := verify.CanonicalDomain(domain)
	if err != nil {
		return systemSender{}, false
	}
	pid, err := storage.VerifiedDomainProject(ctx, s.db.Reader(), name)
	if err != nil {
		return systemSender{}, false
	}
	return systemSender{from: message.Address{Name: addr.Name, Email: strings.ToLower(addr.Address)}, domain: name, projectID: pid}, true
}

// Ready reports whether platform mail can be sent now: a system
// From is set and its domain is verified in some project.
func (s *Service) Ready(ctx context.Context) bool {
	_, ok := s.systemSender(ctx)
	return ok
}

// Send renders a template and queues it for delivery. Without
// a verified system sender it sends nothing.
func (s *Service) Send(ctx context.Context, to, subject, tmpl string, data any) error {
	snd, ok := s.systemSender(ctx)
	if !ok {
		return nil
	}
	var body bytes.Buffer
	if err := platformTemplates.ExecuteTemplate(&body, tmpl, data); err != nil {
		return err
	}
	signer, err := s.senders.SignerFor(ctx, snd.projectID, snd.domain)
	if err != nil {
		return err
	}
	e := storage.Email{ID: ids.New(), ProjectID: accounts.SystemProjectID, MessageID: message.NewMessageID(snd.domain),
		Sender: snd.from.Email, Recipient: to, Subject: subject, Status: storage.EmailPending, CreatedAt: s.now()}
	raw, err := message.Build(message.Message{From: snd.from, To: []message.Address{{Email: to}}, Subject: subject,
		HTML: body.String(), MessageID: e.MessageID, Date: e.CreatedAt})
	if err != nil {
		return err
	}
	if e.Raw, err = signer.Sign(snd.domain, raw); err != nil {
		return err
	}
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		if err := s.ensureSystemProject(ctx, tx); err != nil {
			return err
		}
		return s.messaging.QueueEmail(ctx, tx, e)
	})
}

// ensureSystemProject creates the hidden project of platform mail. Its
// keys are not well-formed keys, so nothing authenticates as it, and it
// is disabled besides.
func (s *Service) ensureSystemProject(ctx context.Context, tx *storage.Tx) error {
	_, err := storage.ProjectByID(ctx, tx, accounts.SystemProjectID)
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	now := s.now()
	return tx.InsertProject(ctx, storage.Project{ID: accounts.SystemProjectID, Name: "Herald platform mail",
		Public: "system-" + ids.RandomHex(16), Secret: "system-" + ids.RandomHex(16), Disabled: true, Tracking: "DISABLED",
		CreatedAt: now, UpdatedAt: now})
}
