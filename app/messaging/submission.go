package messaging

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/smtpin"
)

// Submitter is the application behind the SMTP submission listener
// (smtpin.Submitter): a project's secret key logs in, and every recipient
// of a submitted message becomes one email through /v1/send's path
// (submission_send.go).
type Submitter struct{ s *Service }

// Submitter returns the submission listener's application side.
func (s *Service) Submitter() *Submitter { return &Submitter{s: s} }

// Authenticate finds the project whose secret key this is, through the
// API's key check and its cache. A public key, an old key, a wrong one or
// a disabled project's is smtpin.ErrBadKey (535 5.7.8, counted against
// the address as the API counts its wrong keys).
func (sub *Submitter) Authenticate(ctx context.Context, secretKey string) (_ smtpin.Sender, err error) {
	defer apierr.Wrap(&err, "messaging.Submitter.Authenticate")
	p, err := sub.s.authenticateKey(ctx, secretKey)
	if err != nil {
		return nil, err
	}
	return &submissionSender{s: sub.s, key: secretKey, projectID: p.ID}, nil
}

// authenticateKey is accounts.Authenticate with its refusals made
// smtpin.ErrBadKey.
func (s *Service) authenticateKey(ctx context.Context, key string) (accounts.Project, error) {
	p, err := s.accounts.Authenticate(ctx, key, accounts.SecretKey)
	if e, ok := apierr.AsError(err); ok && (e.Kind == apierr.KindUnauthorized || e.Kind == apierr.KindForbidden) {
		return accounts.Project{}, smtpin.ErrBadKey
	}
	return p, err
}

// submissionSender acts for one authenticated project. It keeps the key,
// not the project: each message checks the key again (from the cache), so
// that a key regenerated or a project disabled during a session stops it,
// and the project's tracking settings are read as they are now.
type submissionSender struct {
	s         *Service
	key       string
	projectID string
}

func (sd *submissionSender) ProjectID() string { return sd.projectID }

// CheckSender refuses an address that is not at a verified domain of the
// project, with the domain named; the check is /v1/send's (through the
// sender cache).
func (sd *submissionSender) CheckSender(ctx context.Context, address string) (err error) {
	defer apierr.Wrap(&err, "messaging.Submitter.CheckSender")
	_, err = sd.s.senders.SenderSigner(ctx, sd.projectID, address)
	return senderRejection(err)
}

// senderRejection makes the refusal of an unverified sender domain the
// listener's 550 5.7.1; any other error is left as it is.
func senderRejection(err error) error {
	if e, ok := apierr.AsError(err); ok && e.Kind == apierr.KindForbidden {
		if domain, ok := e.Details["domain"].(string); ok {
			return &smtpin.Rejection{Reason: smtpin.RejectSenderDomain,
				Message: "Sender domain " + domain + " is not a verified domain of this project"}
		}
	}
	return err
}

// rejection is a refusal of the listener's kind with its one line.
func rejection(reason smtpin.Reason, msg string) error {
	return &smtpin.Rejection{Reason: reason, Message: msg}
}

// billingRejection makes a send over a billing cap the listener's
// 452 4.3.1.
func billingRejection(err error) error {
	if e, ok := apierr.AsError(err); ok && e.Code == "BILLING_LIMIT_EXCEEDED" {
		return rejection(smtpin.RejectBillingCap, e.Message)
	}
	return err
}

// errKeyGone is Submit's answer when the session's key stopped working
// after AUTH: 451, so that the client comes back, logs in again and is
// told (535) that the key is wrong.
var errKeyGone = errors.New("the secret key of this session is no longer valid")

// The listener's interfaces, checked at compile time.
var (
	_ smtpin.Submitter = (*Submitter)(nil)
	_ smtpin.Sender    = (*submissionSender)(nil)
)
