package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// Amazon SES notifications, for relay-mode users whose smarthost is SES.
// They arrive through SNS (sns_webhook.go) and map onto the same email
// events as bounces received by the inbound listener.

// sesNotification is the part of an SES notification Herald reads. Event
// publishing names the kind eventType, notifications notificationType.
type sesNotification struct {
	NotificationType string        `json:"notificationType"`
	EventType        string        `json:"eventType"`
	Mail             sesMail       `json:"mail"`
	Bounce           *sesBounce    `json:"bounce"`
	Complaint        *sesComplaint `json:"complaint"`
	Delivery         *sesDelivery  `json:"delivery"`
}

type sesMail struct {
	MessageID string `json:"messageId"` // SES's own id, not the Message-ID header
	// Destination is the envelope's recipients: Herald sends each email on
	// its own, so one address, which tells apart the copies of a message
	// submitted over SMTP that share the client's Message-ID.
	Destination []string `json:"destination"`
	Headers     []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
	CommonHeaders struct {
		MessageID string `json:"messageId"`
	} `json:"commonHeaders"`
}

type sesBounce struct {
	BounceType        string                `json:"bounceType"` // Permanent, Transient, Undetermined
	BounceSubType     string                `json:"bounceSubType"`
	BouncedRecipients []sesBouncedRecipient `json:"bouncedRecipients"`
}

type sesBouncedRecipient struct {
	EmailAddress   string `json:"emailAddress"`
	Status         string `json:"status"`
	DiagnosticCode string `json:"diagnosticCode"`
}

type sesComplaint struct {
	ComplaintFeedbackType string `json:"complaintFeedbackType"`
	UserAgent             string `json:"userAgent"`
}

type sesDelivery struct {
	SMTPResponse string `json:"smtpResponse"`
}

// applySES applies one notification in one write. A message that is not
// an SES notification (SES's test message on subscribing is plain text)
// or names no email of Herald's is logged and ignored.
func (s *Service) applySES(ctx context.Context, message string) error {
	var n sesNotification
	if err := json.Unmarshal([]byte(message), &n); err != nil {
		s.log.Info("sns notification ignored: not an SES notification", "err", err)
		return nil
	}
	kind := n.NotificationType
	if kind == "" {
		kind = n.EventType
	}
	var outcome string
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		e, err := sesEmail(ctx, tx, n.Mail)
		if errors.Is(err, storage.ErrNotFound) {
			outcome = "no such email"
			return nil
		}
		if err != nil {
			return err
		}
		outcome, err = s.applySESKind(ctx, tx, e, kind, &n)
		return err
	})
	if err == nil {
		s.log.Info("ses notification", "type", kind, "ses_message_id", n.Mail.MessageID, "outcome", outcome)
	}
	return err
}

// sesEmail finds the email by its Message-ID header, which Herald set;
// mail.messageId is SES's own id and means nothing here.
func sesEmail(ctx context.Context, q storage.Querier, m sesMail) (storage.Email, error) {
	var ids []string
	for _, h := range m.Headers {
		if strings.EqualFold(h.Name, "Message-ID") {
			ids = append(ids, h.Value)
		}
	}
	for _, id := range append(ids, m.CommonHeaders.MessageID) {
		if id = angleBracketed(id); id == "" {
			continue
		}
		var e storage.Email
		var err error
		if len(m.Destination) == 1 {
			e, err = storage.EmailByMessageIDTo(ctx, q, id, verify.NormalizeEmail(m.Destination[0]))
		} else {
			e, err = storage.EmailByMessageID(ctx, q, id)
		}
		if !errors.Is(err, storage.ErrNotFound) {
			return e, err
		}
	}
	return storage.Email{}, storage.ErrNotFound
}

// angleBracketed is a Message-ID as Herald stores it: "<id@domain>".
func angleBracketed(id string) string {
	id = strings.Trim(strings.TrimSpace(id), "<>")
	if id == "" {
		return ""
	}
	return "<" + id + ">"
}

func (s *Service) applySESKind(ctx context.Context, tx *storage.Tx, e storage.Email, kind string, n *sesNotification) (string, error) {
	switch {
	case kind == "Bounce" && n.Bounce != nil:
		return s.applySESBounce(ctx, tx, e, n.Bounce)
	case kind == "Complaint" && n.Complaint != nil:
		extra := map[string]any{"source": "ses"}
		if t := n.Complaint.ComplaintFeedbackType; t != "" {
			extra["feedbackType"] = t
		}
		return s.complainLater(ctx, tx, e, extra)
	case kind == "Delivery" && n.Delivery != nil:
		return s.deliverLater(ctx, tx, e, n.Delivery.SMTPResponse)
	}
	return "type " + kind + ": no change", nil
}

// applySESBounce bounces on a permanent bounce. Transient bounces (a full
// mailbox, an auto-reply SES classed as a bounce) say nothing lasting.
func (s *Service) applySESBounce(ctx context.Context, tx *storage.Tx, e storage.Email, b *sesBounce) (string, error) {
	if b.BounceType != "Permanent" {
		return "bounce type " + b.BounceType + ": no change", nil
	}
	r := b.recipient(e.Recipient)
	response := r.DiagnosticCode
	if response == "" {
		response = "SES permanent bounce: " + b.BounceSubType
	}
	return s.bounceLater(ctx, tx, e, response, bounceData(BounceSourceSES, 0, r.Status, response))
}

// recipient is the bounced recipient entry for the address, or the first.
func (b *sesBounce) recipient(addr string) sesBouncedRecipient {
	for _, r := range b.BouncedRecipients {
		if strings.EqualFold(r.EmailAddress, addr) {
			return r
		}
	}
	if len(b.BouncedRecipients) > 0 {
		return b.BouncedRecipients[0]
	}
	return sesBouncedRecipient{}
}

// deliverLater records a delivery a relay reported after accepting the
// message: SENT becomes DELIVERED with email.delivery. Any other status
// already knows more (or was delivered directly) and is left alone.
func (s *Service) deliverLater(ctx context.Context, tx *storage.Tx, e storage.Email, response string) (string, error) {
	if e.Status != storage.EmailSent {
		return "status " + e.Status + ": no change", nil
	}
	if err := tx.SetEmailStatus(ctx, e.ID, storage.EmailDelivered, response, s.now()); err != nil {
		return "", err
	}
	return "delivered", s.EmitEmailEvent(ctx, tx, e, event.EventDelivery, map[string]any{"source": "ses"})
}
