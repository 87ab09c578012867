package accounts

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

// Who may sign up (HERALD_SIGNUPS). The first user made on an
// installation, by sign-up or `herald user create`, is its administrator.
const (
	// SignupsFirst, the default: only the first user signs up; after
	// that, accounts come from invitations or the operator's CLI.
	SignupsFirst = "first"
	// SignupsOpen: anyone may sign up.
	SignupsOpen = "open"
	// SignupsInvite: only someone invited by email (POST
	// /projects/{id}/members for an email with no account) signs up,
	// with the link's token; the first user comes from the CLI.
	SignupsInvite = "invite"
	// SignupsClosed is the mode HERALD_DISABLE_SIGNUPS=true forces: no
	// sign-up at all, invitations included.
	SignupsClosed = "closed"
)

// ValidSignupMode reports whether s is a value HERALD_SIGNUPS takes.
func ValidSignupMode(s string) bool {
	return s == SignupsFirst || s == SignupsOpen || s == SignupsInvite
}

// ErrSignupsDisabled answers a sign-up that is not taken: every sign-up
// under HERALD_DISABLE_SIGNUPS=true (before any other check of the
// request), and one without an invitation once the mode closes it.
var ErrSignupsDisabled = &apierr.Error{Kind: apierr.KindForbidden, Code: "SIGNUPS_DISABLED", Message: "Signups are disabled on this server",
	Suggestion: "Ask the operator to create your account (herald user create)"}

var errSignupsByInvitation = &apierr.Error{Kind: apierr.KindForbidden, Code: "SIGNUPS_DISABLED",
	Message:    "Sign-up on this server is by invitation only",
	Suggestion: "Ask an administrator of a project to invite your email, then follow the link in the invitation"}

// SignupMode is the configured mode: first, open, invite, or closed.
func (s *Service) SignupMode() string {
	switch {
	case s.opts.DisableSignups:
		return SignupsClosed
	case ValidSignupMode(s.opts.Signups):
		return s.opts.Signups
	}
	return SignupsFirst
}

// SignupsEnabled reports whether a sign-up without an invitation would be
// taken now (GET /config's signupsEnabled).
func (s *Service) SignupsEnabled(ctx context.Context) (_ bool, err error) {
	defer apierr.Wrap(&err, "accounts.SignupsEnabled")
	switch s.SignupMode() {
	case SignupsOpen:
		return true, nil
	case SignupsFirst:
		has, err := storage.HasUsers(ctx, s.db.Reader())
		return !has, err
	}
	return false, nil
}

// signupRefusal is the error a sign-up without an invitation gets when
// the mode closes it; nil when it is taken. hasUsers: the installation
// has its first user.
func (s *Service) signupRefusal(hasUsers bool) error {
	switch s.SignupMode() {
	case SignupsOpen:
		return nil
	case SignupsFirst:
		if !hasUsers {
			return nil
		}
		return errSignupsByInvitation
	case SignupsInvite:
		return errSignupsByInvitation
	}
	return ErrSignupsDisabled
}

// SignupInput is the body of POST /auth/signup.
type SignupInput struct {
	Email       *string
	Password    *string
	InviteToken *string // the token of an invitation link, if any
}

// Signup creates a user and logs them in. Without an invitation it makes
// no project and is taken only as the mode allows; with one, the account
// joins the invitation's project with its role, whatever the mode but
// closed.
func (s *Service) Signup(ctx context.Context, in SignupInput) (_ Session, err error) {
	defer apierr.Wrap(&err, "accounts.Signup")
	if s.opts.DisableSignups {
		return Session{}, ErrSignupsDisabled
	}
	if in.InviteToken != nil {
		return s.signupInvited(ctx, in)
	}
	has, err := storage.HasUsers(ctx, s.db.Reader())
	if err != nil {
		return Session{}, err
	}
	if err := s.signupRefusal(has); err != nil {
		return Session{}, err
	}
	u, err := s.createUser(ctx, in.Email, in.Password, "password", s.notify.Ready(ctx), s.signupRefusal)
	if err != nil {
		return Session{}, err
	}
	if !u.EmailVerified {
		s.sendUserMail(ctx, u, tokenVerify)
	}
	return s.newSession(ctx, u)
}

// CreateUser makes a verified user, whatever the signup setting (the
// operator's `herald user create`); the first user is the administrator.
func (s *Service) CreateUser(ctx context.Context, email, pw string) (_ User, err error) {
	defer apierr.Wrap(&err, "accounts.CreateUser")
	u, err := s.createUser(ctx, &email, &pw, "password", false, nil)
	return userView(u), err
}

// createUser validates, hashes and stores a new user; the first user of
// the installation becomes its administrator. refuse, when set, is asked
// again inside the write whether the sign-up is still taken (another may
// have become the first user meanwhile).
func (s *Service) createUser(ctx context.Context, email, pw *string, pwField string, needsVerification bool,
	refuse func(hasUsers bool) error) (storage.User, error) {
	var v apierr.Validation
	e, p := checkCredentials(&v, email, pw, pwField)
	if err := v.Err(); err != nil {
		return storage.User{}, err
	}
	hash, err := s.hasher.Hash(ctx, p)
	if err != nil {
		return storage.User{}, err
	}
	now := s.now()
	u := storage.User{ID: ids.New(), Email: e, PasswordHash: hash, EmailVerified: !needsVerification, CreatedAt: now, UpdatedAt: now}
	err = s.insertUser(ctx, &u, func(tx *storage.Tx, hasUsers bool) error {
		if refuse != nil {
			return refuse(hasUsers)
		}
		return nil
	})
	return u, err
}

var errEmailTaken = &apierr.Error{Kind: apierr.KindConflict, Code: "EMAIL_TAKEN", Message: "An account with this email already exists"}

// insertUser stores u, its administrator flag set when it is the
// installation's first user, after check (given whether the installation
// has users) passes in the same write; then, in that write too, after is
// called. u gets a fresh id.
func (s *Service) insertUser(ctx context.Context, u *storage.User, check func(tx *storage.Tx, hasUsers bool) error,
	then ...func(tx *storage.Tx) error) error {
	// Two tries: an administrator made meanwhile by another engine's
	// writer (PostgreSQL) fails the insert on the one-administrator index;
	// the second try sees that user.
	for try := 0; ; try++ {
		err := s.db.Write(ctx, func(tx *storage.Tx) error {
			has, err := storage.HasUsers(ctx, tx)
			if err != nil {
				return err
			}
			if err := check(tx, has); err != nil {
				return err
			}
			u.Admin = !has
			if err := tx.InsertUser(ctx, *u); err != nil {
				return err
			}
			for _, fn := range then {
				if err := fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, storage.ErrDuplicate) {
			return err
		}
		if _, err := storage.UserByEmail(ctx, s.db.Reader(), u.Email); err == nil || !u.Admin || try > 0 {
			return errEmailTaken
		}
	}
}
