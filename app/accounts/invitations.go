package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

// Invitations: POST /projects/{id}/members with an email that has no
// account makes one; its link, {base}/app/signup?inviteToken=…, lasts 7
// days, and POST /auth/signup with the token makes the account (verified:
// the link reached its mailbox, or platform mail is off and nobody's email
// is verified) and the membership in one write. An invitation works in
// every sign-up mode but closed (HERALD_DISABLE_SIGNUPS=true), and only
// for the email it names.
const (
	InvitationTTL = 7 * 24 * time.Hour
	// invitationsPerHour caps the invitations of one email to one
	// project per hour: each may be a mail to a stranger's address.
	invitationsPerHour = 3
	// MaxPendingInvitations bounds a project's open invitations.
	MaxPendingInvitations = 1000
)

// Invitation is a pending invitation as the API shows it. POST
// /projects/{id}/members answers one in place of a member: userId null,
// invited true.
type Invitation struct {
	UserID    *string   `json:"userId"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	Invited   bool      `json:"invited"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Mailed: the link was mailed to the email. Without platform mail it
	// is not, and InviteURL gives it to the inviter (null otherwise, and
	// in lists: only the link holds the token).
	Mailed    bool    `json:"mailed"`
	InviteURL *string `json:"inviteUrl"`
}

// Added is what POST /projects/{id}/members made: a member, or an
// invitation for an email with no account.
type Added struct {
	Member     *Member
	Invitation *Invitation
}

// MarshalJSON writes the member or the invitation.
func (a Added) MarshalJSON() ([]byte, error) {
	if a.Invitation != nil {
		return json.Marshal(a.Invitation)
	}
	return json.Marshal(a.Member)
}

// invite is an invitation about to be stored, its token made outside the
// write (which may run twice).
type invite struct {
	token string
	row   storage.Invitation
}

// newInvite prepares an invitation; nil when sign-up is closed entirely.
func (s *Service) newInvite(acc Access, email string, r Role) *invite {
	if s.opts.DisableSignups {
		return nil
	}
	token, hash := newSecretToken()
	now := s.now()
	return &invite{token: token, row: storage.Invitation{TokenHash: hash, ProjectID: acc.Project.ID, Email: email,
		Role: string(r), InvitedBy: acc.UserID(), CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}}
}

// insertInvitation stores an invitation within the project's and the
// email's caps.
func (s *Service) insertInvitation(ctx context.Context, tx *storage.Tx, inv *invite) error {
	r := inv.row
	n, err := storage.CountPendingInvitations(ctx, tx, r.ProjectID, r.CreatedAt)
	if err != nil {
		return err
	}
	if n >= MaxPendingInvitations {
		return apierr.Invalid(apierr.FieldError{Field: "email", Code: "too_many", Message: "A project can have at most 1,000 open invitations"})
	}
	n, err = storage.CountInvitationsSince(ctx, tx, r.ProjectID, r.Email, r.CreatedAt.Add(-time.Hour))
	if err != nil {
		return err
	}
	if n >= invitationsPerHour {
		return &apierr.Error{Kind: apierr.KindRateLimited, Code: "RATE_LIMIT_EXCEEDED",
			Message:    "This email was invited to this project 3 times in the last hour",
			Details:    map[string]any{"retryAfter": 3600},
			Suggestion: "Send the link of an earlier invitation, or wait an hour"}
	}
	return tx.InsertInvitation(ctx, r)
}

// sendInvitation mails a stored invitation, or gives its link to the
// inviter when platform mail is off.
func (s *Service) sendInvitation(ctx context.Context, acc Access, inv *invite) *Invitation {
	view := invitationView(inv.row)
	url := strings.TrimSuffix(s.baseURL, "/") + "/app/signup?inviteToken=" + inv.token
	if !s.notify.Ready(ctx) {
		view.InviteURL = &url
		return &view
	}
	inviter := ""
	if acc.user != nil {
		inviter = acc.user.Email
	}
	err := s.notify.Send(ctx, inv.row.Email, "You are invited to "+acc.Project.Name+" on Herald", "invitation.html",
		map[string]string{"Email": inv.row.Email, "URL": url, "Project": acc.Project.Name, "Role": inv.row.Role, "Inviter": inviter})
	if err != nil {
		s.log.Error("platform mail", "kind", "invitation", "project_id", inv.row.ProjectID, "err", err.Error())
		view.InviteURL = &url // the inviter can still pass it on
		return &view
	}
	view.Mailed = true
	return &view
}

func invitationView(i storage.Invitation) Invitation {
	return Invitation{Email: i.Email, Role: Role(i.Role), Invited: true, CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt}
}

// ListInvitations returns the project's open invitations, oldest first.
func (s *Service) ListInvitations(ctx context.Context, acc Access) (_ []Invitation, err error) {
	defer apierr.Wrap(&err, "accounts.ListInvitations")
	rows, err := storage.PendingInvitations(ctx, s.db.Reader(), acc.Project.ID, s.now())
	out := make([]Invitation, 0, len(rows))
	for _, r := range rows {
		out = append(out, invitationView(r))
	}
	return out, err
}

// WithdrawInvitation makes the project's open invitations of an email
// unusable. Withdrawing an OWNER's invitation takes an OWNER.
func (s *Service) WithdrawInvitation(ctx context.Context, acc Access, email string) (err error) {
	defer apierr.Wrap(&err, "accounts.WithdrawInvitation")
	e := strings.ToLower(strings.TrimSpace(email))
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		pending, err := storage.PendingInvitations(ctx, tx, acc.Project.ID, s.now())
		if err != nil {
			return err
		}
		found := false
		for _, p := range pending {
			if p.Email != e {
				continue
			}
			found = true
			if Role(p.Role) == RoleOwner && !acc.Role.Includes(RoleOwner) {
				return ErrForbidden
			}
		}
		if !found {
			return apierr.NotFound("NOT_FOUND", "No open invitation of this email to this project")
		}
		_, err = tx.WithdrawInvitations(ctx, acc.Project.ID, e, s.now())
		return err
	})
}

var errInvitationEmail = apierr.Invalid(apierr.FieldError{Field: "email", Code: "invitation_mismatch",
	Message: "This invitation is for another email address: sign up with the address it was sent to"})

// signupInvited takes an invitation: the account, verified, and its
// membership, in one write. The fields are checked first, so that a 422
// keeps the invitation usable.
func (s *Service) signupInvited(ctx context.Context, in SignupInput) (Session, error) {
	var v apierr.Validation
	e, p := checkCredentials(&v, in.Email, in.Password, "password")
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	token := *in.InviteToken
	if token == "" || len(token) > 100 {
		return Session{}, errInvalidToken
	}
	hash, err := s.hasher.Hash(ctx, p)
	if err != nil {
		return Session{}, err
	}
	now := s.now()
	u := storage.User{ID: ids.New(), Email: e, PasswordHash: hash, EmailVerified: true, CreatedAt: now, UpdatedAt: now}
	var inv storage.Invitation
	err = s.insertUser(ctx, &u, func(tx *storage.Tx, _ bool) error {
		var err error
		inv, err = storage.UsableInvitation(ctx, tx, hashToken(token), now)
		if errors.Is(err, storage.ErrNotFound) {
			return errInvalidToken
		}
		if err != nil {
			return err
		}
		if inv.Email != e {
			return errInvitationEmail
		}
		if _, err := storage.UserByEmail(ctx, tx, e); err == nil {
			return errEmailTaken
		}
		return nil
	}, func(tx *storage.Tx) error {
		if _, err := s.insertMember(ctx, tx, inv.ProjectID, u, Role(inv.Role)); err != nil {
			return err
		}
		_, err := tx.UseInvitation(ctx, inv.TokenHash, now)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.newSession(ctx, u)
}
