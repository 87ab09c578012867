package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// Platform mail is Herald's own mail to its users: email verification,
// password reset, project notices. It is sent From HERALD_SYSTEM_FROM,
// signed with the key of a project's verified domain of that address, and
// goes through the same delivery path as /v1/send: an email row and a
// delivery job. The row belongs to a hidden system project (no members,
// keys that can never authenticate), so it is no contact, event or usage
// of any user's project.

// The kinds of one-time token platform mail carries, and their lifetimes.
const (
	tokenVerify = "verify"
	tokenReset  = "reset"

	verifyTokenTTL = 24 * time.Hour
	resetTokenTTL  = time.Hour
	// userMailPerHour caps the mails of one kind a user gets per hour.
	userMailPerHour = 3
)

// userMail is what a verification or reset mail says.
var userMail = map[string]struct {
	subject, template, path string
	ttl                     time.Duration
}{
	tokenVerify: {"Verify your email address", "verify-email.html", "/app/verify-email", verifyTokenTTL},
	tokenReset:  {"Reset your password", "reset-password.html", "/app/reset-password", resetTokenTTL},
}

// sendUserMail sends a user a verification or reset mail with a new
// one-time token: at most userMailPerHour of a kind per user and hour,
// and none without a verified system sender. Failures are logged, never
// shown: the caller's answer must not depend on them.
func (s *Service) sendUserMail(ctx context.Context, u storage.User, kind string) {
	if !s.notify.Ready(ctx) {
		return
	}
	m := userMail[kind]
	token := ids.RandomHex(32)
	now := s.now()
	sent := false
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		n, err := storage.CountUserTokensSince(ctx, tx, u.ID, kind, now.Add(-time.Hour))
		if err != nil || n >= userMailPerHour {
			sent = false
			return err
		}
		sent = true
		return tx.InsertUserToken(ctx, storage.UserToken{TokenHash: hashToken(token), UserID: u.ID, Kind: kind,
			CreatedAt: now, ExpiresAt: now.Add(m.ttl)})
	})
	if err == nil && sent {
		url := strings.TrimSuffix(s.baseURL, "/") + m.path + "?token=" + token
		err = s.notify.Send(ctx, u.Email, m.subject, m.template, map[string]string{"Email": u.Email, "URL": url})
	}
	if err != nil {
		s.log.Error("platform mail", "kind", kind, "user_id", u.ID, "err", err.Error())
	}
}

// tellOwnersDisabled mails a disabled project's owners.
func (s *Service) tellOwnersDisabled(ctx context.Context, p Project, violations []string) {
	owners, err := storage.OwnersOf(ctx, s.db.Reader(), p.ID)
	for _, o := range owners {
		if err != nil {
			break
		}
		err = s.notify.Send(ctx, o, "Herald disabled your project "+p.Name, "project-disabled.html",
			map[string]any{"Project": p.Name, "Violations": violations})
	}
	if err != nil {
		s.log.Error("platform mail", "kind", "project-disabled", "project_id", p.ID, "err", err.Error())
	}
}

var errInvalidToken = &apierr.Error{Kind: apierr.KindBadRequest, Code: "INVALID_TOKEN", Message: "This link is invalid, used or expired",
	Suggestion: "Ask for a new one"}

// consumeToken marks a usable token used and runs then in the same write;
// it returns the token's user.
func (s *Service) consumeToken(ctx context.Context, token *string, kind string, then func(tx *storage.Tx, userID string) error) error {
	if token == nil || len(*token) != 64 {
		return errInvalidToken
	}
	now := s.now()
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		uid, err := storage.UsableUserToken(ctx, tx, hashToken(*token), kind, now)
		if errors.Is(err, storage.ErrNotFound) {
			return errInvalidToken
		}
		if err != nil {
			return err
		}
		if err := tx.UseUserToken(ctx, hashToken(*token), now); err != nil {
			return err
		}
		return then(tx, uid)
	})
}

// VerifyUserEmail uses a verification token: the user's email is verified.
func (s *Service) VerifyUserEmail(ctx context.Context, token *string) (err error) {
	defer apierr.Wrap(&err, "accounts.VerifyUserEmail")
	return s.consumeToken(ctx, token, tokenVerify, func(tx *storage.Tx, uid string) error {
		return tx.SetUserVerified(ctx, uid, s.now())
	})
}

// RequestVerification sends a new verification mail to the session's
// user, or to the user of email; it says nothing about who exists.
func (s *Service) RequestVerification(ctx context.Context, session string, email *string) (err error) {
	defer apierr.Wrap(&err, "accounts.RequestVerification")
	if session != "" {
		if u, err := s.sessionUser(ctx, session); err == nil {
			if !u.EmailVerified {
				s.sendUserMail(ctx, u, tokenVerify)
			}
			return nil
		}
	}
	u, err := s.userForMail(ctx, email)
	if err != nil || u == nil || u.EmailVerified {
		return err
	}
	s.sendUserMail(ctx, *u, tokenVerify)
	return nil
}

// userForMail validates an email and finds its user; nil when none.
func (s *Service) userForMail(ctx context.Context, email *string) (*storage.User, error) {
	var v apierr.Validation
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
		return nil, v.Err()
	}
	e := verify.CheckEmail(&v, "email", *email)
	if err := v.Err(); err != nil {
		return nil, err
	}
	u, err := storage.UserByEmail(ctx, s.db.Reader(), e)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return &u, err
}

// RequestPasswordReset mails a reset link to the user of email, if any.
// Every well-formed email gets the same answer.
func (s *Service) RequestPasswordReset(ctx context.Context, email *string) (err error) {
	defer apierr.Wrap(&err, "accounts.RequestPasswordReset")
	u, err := s.userForMail(ctx, email)
	if err != nil {
		return err
	}
	if !s.notify.Ready(ctx) {
		// The page told the person to ask the administrator; the log
		// tells the operator someone may.
		args := []any{"known_user", u != nil}
		if u != nil {
			args = append(args, "user_id", u.ID)
		}
		s.log.Warn("password reset requested, but no platform mail is configured (HERALD_SYSTEM_FROM unset or its domain "+
			"unverified): no mail sent; reset it with herald user reset-password", args...)
		return nil
	}
	if u != nil {
		s.sendUserMail(ctx, *u, tokenReset)
	}
	return nil
}

// ResetPassword uses a reset token: the new password is set, the email
// verified, and every session of the user ends. An invalid password keeps
// the token usable.
func (s *Service) ResetPassword(ctx context.Context, token, newPassword *string) (err error) {
	defer apierr.Wrap(&err, "accounts.ResetPassword")
	var v apierr.Validation
	p := checkNewPassword(&v, "newPassword", newPassword)
	if err := v.Err(); err != nil {
		return err
	}
	hash, err := s.hasher.Hash(ctx, p)
	if err != nil {
		return err
	}
	var email string
	err = s.consumeToken(ctx, token, tokenReset, func(tx *storage.Tx, uid string) error {
		now := s.now()
		u, err := storage.UserByID(ctx, tx, uid)
		if err != nil {
			return err
		}
		email = u.Email
		if err := tx.SetUserPassword(ctx, uid, hash, now); err != nil {
			return err
		}
		if err := tx.SetUserVerified(ctx, uid, now); err != nil {
			return err
		}
		return tx.DeleteUserSessions(ctx, uid)
	})
	if err == nil {
		s.lockout.reset(email)
	}
	return err
}
