package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"html/template"
	"net/mail"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/platformmail"
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

// systemProjectID owns the rows of platform mail.
const systemProjectID = "00000000-0000-7000-8000-000000000000"

var platformTemplates = template.Must(template.ParseFS(platformmail.FS, "*.html"))

// systemSender is the parsed From of platform mail and the project whose
// verified domain signs it; ok is false when there is none.
type systemSender struct {
	from      message.Address
	domain    string
	projectID string
}

func (a *App) systemSender(ctx context.Context) (systemSender, bool) {
	if a.accounts.opts.SystemFrom == "" {
		return systemSender{}, false
	}
	addr, err := mail.ParseAddress(a.accounts.opts.SystemFrom)
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
	pid, err := storage.VerifiedDomainProject(ctx, a.db.Reader(), name)
	if err != nil {
		return systemSender{}, false
	}
	return systemSender{from: message.Address{Name: addr.Name, Email: strings.ToLower(addr.Address)}, domain: name, projectID: pid}, true
}

// systemMailReady reports whether platform mail can be sent now: a system
// From is set and its domain is verified in some project.
func (a *App) systemMailReady(ctx context.Context) bool {
	_, ok := a.systemSender(ctx)
	return ok
}

// sendPlatformMail renders a template and queues it for delivery. Without
// a verified system sender it sends nothing.
func (a *App) sendPlatformMail(ctx context.Context, to, subject, tmpl string, data any) error {
	snd, ok := a.systemSender(ctx)
	if !ok {
		return nil
	}
	var body bytes.Buffer
	if err := platformTemplates.ExecuteTemplate(&body, tmpl, data); err != nil {
		return err
	}
	signer, err := a.signerFor(ctx, snd.projectID, snd.domain)
	if err != nil {
		return err
	}
	e := storage.Email{ID: newID(), ProjectID: systemProjectID, MessageID: message.NewMessageID(snd.domain),
		Sender: snd.from.Email, Recipient: to, Subject: subject, Status: storage.EmailPending, CreatedAt: a.now()}
	raw, err := message.Build(message.Message{From: snd.from, To: []message.Address{{Email: to}}, Subject: subject,
		HTML: body.String(), MessageID: e.MessageID, Date: e.CreatedAt})
	if err != nil {
		return err
	}
	if e.Raw, err = signer.Sign(snd.domain, raw); err != nil {
		return err
	}
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		if err := a.ensureSystemProject(ctx, tx); err != nil {
			return err
		}
		return a.queueEmail(ctx, tx, e)
	})
}

// ensureSystemProject creates the hidden project of platform mail. Its
// keys are not well-formed keys, so nothing authenticates as it, and it
// is disabled besides.
func (a *App) ensureSystemProject(ctx context.Context, tx *storage.Tx) error {
	_, err := storage.ProjectByID(ctx, tx, systemProjectID)
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	now := a.now()
	return tx.InsertProject(ctx, storage.Project{ID: systemProjectID, Name: "Herald platform mail",
		Public: "system-" + randomHex(16), Secret: "system-" + randomHex(16), Disabled: true, Tracking: "DISABLED",
		CreatedAt: now, UpdatedAt: now})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

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
func (a *App) sendUserMail(ctx context.Context, u storage.User, kind string) {
	if !a.systemMailReady(ctx) {
		return
	}
	m := userMail[kind]
	token := randomHex(32)
	now := a.now()
	sent := false
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
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
		url := strings.TrimSuffix(a.baseURL, "/") + m.path + "?token=" + token
		err = a.sendPlatformMail(ctx, u.Email, m.subject, m.template, map[string]string{"Email": u.Email, "URL": url})
	}
	if err != nil {
		a.log.Error("platform mail", "kind", kind, "user_id", u.ID, "err", err.Error())
	}
}

// tellOwnersDisabled mails a disabled project's owners.
func (a *App) tellOwnersDisabled(ctx context.Context, p Project, violations []string) {
	owners, err := storage.OwnersOf(ctx, a.db.Reader(), p.ID)
	for _, o := range owners {
		if err != nil {
			break
		}
		err = a.sendPlatformMail(ctx, o, "Herald disabled your project "+p.Name, "project-disabled.html",
			map[string]any{"Project": p.Name, "Violations": violations})
	}
	if err != nil {
		a.log.Error("platform mail", "kind", "project-disabled", "project_id", p.ID, "err", err.Error())
	}
}

var errInvalidToken = &Error{Kind: KindBadRequest, Code: "INVALID_TOKEN", Message: "This link is invalid, used or expired",
	Suggestion: "Ask for a new one"}

// consumeToken marks a usable token used and runs then in the same write;
// it returns the token's user.
func (a *App) consumeToken(ctx context.Context, token *string, kind string, then func(tx *storage.Tx, userID string) error) error {
	if token == nil || len(*token) != 64 {
		return errInvalidToken
	}
	now := a.now()
	return a.db.Write(ctx, func(tx *storage.Tx) error {
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
func (a *App) VerifyUserEmail(ctx context.Context, token *string) error {
	return a.consumeToken(ctx, token, tokenVerify, func(tx *storage.Tx, uid string) error {
		return tx.SetUserVerified(ctx, uid, a.now())
	})
}

// RequestVerification sends a new verification mail to the session's
// user, or to the user of email; it says nothing about who exists.
func (a *App) RequestVerification(ctx context.Context, session string, email *string) error {
	if session != "" {
		if u, err := a.sessionUser(ctx, session); err == nil {
			if !u.EmailVerified {
				a.sendUserMail(ctx, u, tokenVerify)
			}
			return nil
		}
	}
	u, err := a.userForMail(ctx, email)
	if err != nil || u == nil || u.EmailVerified {
		return err
	}
	a.sendUserMail(ctx, *u, tokenVerify)
	return nil
}

// userForMail validates an email and finds its user; nil when none.
func (a *App) userForMail(ctx context.Context, email *string) (*storage.User, error) {
	var v Validation
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
		return nil, v.Err()
	}
	e := checkEmail(&v, "email", *email)
	if err := v.Err(); err != nil {
		return nil, err
	}
	u, err := storage.UserByEmail(ctx, a.db.Reader(), e)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return &u, err
}

// RequestPasswordReset mails a reset link to the user of email, if any.
// Every well-formed email gets the same answer.
func (a *App) RequestPasswordReset(ctx context.Context, email *string) error {
	u, err := a.userForMail(ctx, email)
	if err != nil || u == nil {
		return err
	}
	a.sendUserMail(ctx, *u, tokenReset)
	return nil
}

// ResetPassword uses a reset token: the new password is set, the email
// verified, and every session of the user ends. An invalid password keeps
// the token usable.
func (a *App) ResetPassword(ctx context.Context, token, newPassword *string) error {
	var v Validation
	p := checkNewPassword(&v, "newPassword", newPassword)
	if err := v.Err(); err != nil {
		return err
	}
	hash, err := a.accounts.hasher.Hash(ctx, p)
	if err != nil {
		return err
	}
	var email string
	err = a.consumeToken(ctx, token, tokenReset, func(tx *storage.Tx, uid string) error {
		now := a.now()
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
		a.accounts.lockout.reset(email)
	}
	return err
}
