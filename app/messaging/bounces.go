package messaging

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/report"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/tracking"
	"github.com/heraldmail/herald/storage"
)

// Bounces and complaints that arrive after delivery: delivery status
// notifications and abuse reports mailed to an email's VERP return path
// (here), and Amazon SES notifications (ses.go). Each report is applied in
// one write, and applying the same report twice changes nothing more.

// verpPrefix starts the local part of every return path (see returnPath).
const verpPrefix = "bounce+"

// BounceMailbox is the receiving end of the return-path addresses. The
// inbound SMTP listener (smtpin) asks it which recipients to accept and
// hands it each message; it satisfies smtpin.Handler without app and
// smtpin knowing each other.
type BounceMailbox struct{ app *Service }

// BounceMailbox returns the handler of mail to return paths.
func (s *Service) BounceMailbox() BounceMailbox { return BounceMailbox{app: s} }

// Accept reports whether an address is a return path this installation
// issued: bounce+<token>@... with a token whose MAC checks out. Nothing
// else is accepted, so the listener is no relay and collects no spam.
func (m BounceMailbox) Accept(ctx context.Context, address string) (bool, error) {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return false, nil
	}
	if served, err := m.app.senders.ServedDomain(ctx, address[at+1:]); !served || err != nil {
		return false, err
	}
	if senders.RoleMailbox(address[:at]) {
		return true, nil
	}
	_, err := m.app.returnPathEmail(ctx, address)
	if errors.Is(err, tracking.ErrBadToken) {
		return false, nil
	}
	return err == nil, err
}

// Deliver applies one message sent to accepted return paths. Mail that is
// not a report (auto-replies, out-of-office notes) is logged and dropped:
// it says nothing about deliverability. An error is a failure to record,
// which the listener answers with a temporary error so the sender retries.
func (m BounceMailbox) Deliver(ctx context.Context, from string, to []string, data []byte) error {
	a := m.app
	for _, rcpt := range to {
		if at := strings.LastIndexByte(rcpt, '@'); at >= 0 && senders.RoleMailbox(rcpt[:at]) {
			a.log.Warn("inbound mail for "+strings.ToLower(rcpt[:at]), "from", from, "to", rcpt, "bytes", len(data))
		}
	}
	ids := a.returnPathEmails(ctx, to)
	rep, err := report.Parse(bytes.NewReader(data))
	if err != nil {
		a.log.Info("inbound mail ignored", "from", from, "email_ids", ids, "reason", err.Error())
		return nil
	}
	outcomes := make([]string, len(ids))
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		for i, id := range ids {
			var err error
			if outcomes[i], err = a.applyReport(ctx, tx, id, rep); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, id := range ids {
		a.log.Info("inbound report", "email_id", id, "outcome", outcomes[i],
			"original_message_id", rep.OriginalMessageID)
	}
	return nil
}

// returnPathEmail opens the token of a return-path address.
func (s *Service) returnPathEmail(ctx context.Context, address string) (string, error) {
	at := strings.LastIndexByte(address, '@')
	if at < len(verpPrefix) || !strings.EqualFold(address[:len(verpPrefix)], verpPrefix) {
		return "", tracking.ErrBadToken
	}
	return s.tracking.OpenVERPToken(ctx, address[len(verpPrefix):at])
}

// returnPathEmails are the distinct emails named by accepted recipients.
func (s *Service) returnPathEmails(ctx context.Context, to []string) []string {
	var ids []string
	for _, addr := range to {
		if id, err := s.returnPathEmail(ctx, addr); err == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// applyReport applies a report to the email whose return path received
// it. The token, not the returned message's Message-ID, names the email:
// the token is what the listener checked, and a report cannot reach
// beyond the one email whose return path it was sent to.
func (s *Service) applyReport(ctx context.Context, tx *storage.Tx, emailID string, rep *report.Report) (string, error) {
	e, err := storage.EmailByID(ctx, tx, emailID)
	if errors.Is(err, storage.ErrNotFound) {
		return "email no longer exists", nil
	}
	if err != nil {
		return "", err
	}
	if rep.DSN != nil {
		return s.applyDSN(ctx, tx, e, rep.DSN)
	}
	return s.applyFeedback(ctx, tx, e, rep.Feedback)
}

// applyDSN bounces the email on a permanent failure. Delays, successes
// and expiries after temporary errors change nothing.
func (s *Service) applyDSN(ctx context.Context, tx *storage.Tx, e storage.Email, d *report.DSN) (string, error) {
	r, ok := d.About(e.Recipient)
	if !ok {
		return "no status for the email's recipient", nil
	}
	if !r.Permanent() {
		return "action " + r.Action + " " + r.Status + ": no change", nil
	}
	response := r.DiagnosticCode
	if response == "" {
		response = r.Status
	}
	return s.bounceLater(ctx, tx, e, response, bounceData(BounceSourceDSN, 0, r.Status, r.DiagnosticCode))
}

// applyFeedback records an abuse report as a complaint.
func (s *Service) applyFeedback(ctx context.Context, tx *storage.Tx, e storage.Email, f *report.Feedback) (string, error) {
	if !f.Complaint() {
		return "feedback type " + f.FeedbackType + ": no change", nil
	}
	extra := map[string]any{"source": "arf", "feedbackType": f.FeedbackType}
	if f.UserAgent != "" {
		extra["userAgent"] = f.UserAgent
	}
	return s.complainLater(ctx, tx, e, extra)
}

// bounceLater records a bounce reported after the fact: the email becomes
// BOUNCED, email.bounce is emitted and the contact unsubscribed. An email
// already bounced, or cancelled before it was sent, is left alone.
func (s *Service) bounceLater(ctx context.Context, tx *storage.Tx, e storage.Email, response string, extra map[string]any) (string, error) {
	switch e.Status {
	case storage.EmailBounced:
		return "already bounced", nil
	case storage.EmailCancelled:
		return "email was cancelled: no change", nil
	}
	now := s.now()
	if err := tx.SetEmailStatus(ctx, e.ID, storage.EmailBounced, response, now); err != nil {
		return "", err
	}
	return "bounced", s.bounce(ctx, tx, e, extra, now)
}

// complainLater stamps complainedAt, emits email.complaint and
// unsubscribes the contact, the first time only.
func (s *Service) complainLater(ctx context.Context, tx *storage.Tx, e storage.Email, extra map[string]any) (string, error) {
	now := s.now()
	first, err := tx.MarkEmail(ctx, e.ID, "complained_at", now)
	if err != nil || !first {
		return "already complained", err
	}
	if err := s.EmitEmailEvent(ctx, tx, e, event.EventComplaint, extra); err != nil {
		return "", err
	}
	return "complaint", s.unsubscribeFor(ctx, tx, e.ProjectID, e.ContactID, event.ReasonComplaint, now)
}
