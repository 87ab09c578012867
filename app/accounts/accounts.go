package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/password"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// Input limits of what a person types.
const (
	MaxEmailLength       = 254
	MinPasswordLength    = 8
	MaxPasswordLength    = 256
	MaxProjectNameLength = 100
	MaxProjectsPerUser   = 100
	MaxMembersPerProject = 1000
)

// AccountSettings are what the HTTP layer needs to know of the account
// configuration.
type AccountSettings struct {
	BaseURL    string
	SessionTTL time.Duration
	// SignupMode is first, open, invite, or closed
	// (HERALD_DISABLE_SIGNUPS=true); SignupsEnabled says whether a sign-up
	// would be taken now.
	SignupMode string
	SystemMail bool
}

// AccountSettings returns the account configuration.
func (s *Service) AccountSettings() AccountSettings {
	o := s.opts
	return AccountSettings{BaseURL: s.baseURL, SessionTTL: o.SessionTTL, SignupMode: s.SignupMode(),
		SystemMail: o.SystemFrom != ""}
}

// PasswordParams are the argon2id parameters new hashes are made with.
func (s *Service) PasswordParams() password.Params { return s.hasher.Params() }

// User is a dashboard user as the API shows them.
type User struct {
	ID            string    `json:"id"`
	Email         string    `json:"email"`
	EmailVerified bool      `json:"emailVerified"`
	CreatedAt     time.Time `json:"createdAt"`
	// Admin: the installation's administrator, its first user.
	Admin bool `json:"admin"`
}

func userView(u storage.User) User {
	return User{ID: u.ID, Email: u.Email, EmailVerified: u.EmailVerified, CreatedAt: u.CreatedAt, Admin: u.Admin}
}

// Session is a new login: the user and the token for the cookie.
type Session struct {
	User      User
	Token     string // the cookie's value; only its hash is stored
	ExpiresAt time.Time
}

// checkCredentials validates an email and a new password.
func checkCredentials(v *apierr.Validation, email, pw *string, pwField string) (string, string) {
	var e, p string
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	} else {
		e = verify.NormalizeEmail(*email)
		switch {
		case len(e) > MaxEmailLength:
			v.Add("email", "too_big", "Email must be at most 254 characters", nil)
		case !verify.ValidSyntax(e):
			v.Add("email", "invalid_string", "Invalid email", *email)
		}
	}
	if pw != nil || pwField != "" {
		p = checkNewPassword(v, pwField, pw)
	}
	return e, p
}

func checkNewPassword(v *apierr.Validation, field string, pw *string) string {
	switch {
	case pw == nil:
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	case utf8.RuneCountInString(*pw) < MinPasswordLength:
		v.Add(field, "too_small", "Password must be at least 8 characters", nil)
	case utf8.RuneCountInString(*pw) > MaxPasswordLength:
		v.Add(field, "too_big", "Password must be at most 256 characters", nil)
	}
	return *pw
}

var errInvalidCredentials = &apierr.Error{Kind: apierr.KindUnauthorized, Code: "INVALID_CREDENTIALS", Message: "Invalid email or password"}

// Login checks an email and password and starts a session. An unknown
// email and a wrong password cost the same hash and get the same answer.
func (s *Service) Login(ctx context.Context, email, pw *string) (_ Session, err error) {
	defer apierr.Wrap(&err, "accounts.Login")
	var v apierr.Validation
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	}
	if pw == nil {
		v.Add("password", "invalid_type", "Required", "undefined")
	}
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	e := verify.NormalizeEmail(*email)
	if err := s.lockout.check(e); err != nil {
		return Session{}, err
	}
	u, err := storage.UserByEmail(ctx, s.db.Reader(), e)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return Session{}, err
	}
	ok, err := s.hasher.Check(ctx, u.PasswordHash, *pw)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		s.lockout.fail(e)
		return Session{}, errInvalidCredentials
	}
	s.lockout.reset(e)
	return s.newSession(ctx, u)
}

func (a *Service) newSession(ctx context.Context, u storage.User) (Session, error) {
	token, hash := newSecretToken()
	now := a.now()
	s := storage.Session{TokenHash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(a.opts.SessionTTL)}
	err := a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertSession(ctx, s) })
	return Session{User: userView(u), Token: token, ExpiresAt: s.ExpiresAt}, err
}

// newSecretToken returns 32 random bytes as base64url, and its hash.
func newSecretToken() (string, string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	t := base64.RawURLEncoding.EncodeToString(b[:])
	return t, hashToken(t)
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// Logout ends one session. An unknown token is no error.
func (s *Service) Logout(ctx context.Context, token string) (err error) {
	defer apierr.Wrap(&err, "accounts.Logout")
	if token == "" {
		return nil
	}
	return s.db.Write(ctx, func(tx *storage.Tx) error { return tx.DeleteSession(ctx, hashToken(token)) })
}

var errBadSession = &apierr.Error{Kind: apierr.KindUnauthorized, Code: "UNAUTHORIZED", Message: "Not logged in, or the session has ended",
	Suggestion: "Log in again (POST /auth/login)"}

// sessionUser returns the user of a live session.
func (s *Service) sessionUser(ctx context.Context, token string) (storage.User, error) {
	if token == "" || len(token) > 100 {
		return storage.User{}, errBadSession
	}
	u, err := storage.SessionUser(ctx, s.db.Reader(), hashToken(token), s.now())
	if errors.Is(err, storage.ErrNotFound) {
		return u, errBadSession
	}
	return u, err
}

// ChangePassword checks the current password, sets the new one and ends
// every session of the user, the caller's included; it returns the
// caller's new session.
func (s *Service) ChangePassword(ctx context.Context, acc Access, current, next *string) (_ Session, err error) {
	defer apierr.Wrap(&err, "accounts.ChangePassword")
	u := *acc.user
	var v apierr.Validation
	if current == nil {
		v.Add("currentPassword", "invalid_type", "Required", "undefined")
	}
	p := checkNewPassword(&v, "newPassword", next)
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	if err := s.lockout.check(u.Email); err != nil {
		return Session{}, err
	}
	ok, err := s.hasher.Check(ctx, u.PasswordHash, *current)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		s.lockout.fail(u.Email)
		return Session{}, apierr.Invalid(apierr.FieldError{Field: "currentPassword", Code: "invalid_password", Message: "Current password is wrong"})
	}
	s.lockout.reset(u.Email)
	if err := s.setPassword(ctx, u.ID, p, false); err != nil {
		return Session{}, err
	}
	return s.newSession(ctx, u)
}

// setPassword hashes and stores a password and ends every session of the
// user in the same commit.
func (s *Service) setPassword(ctx context.Context, userID, pw string, verify bool) error {
	hash, err := s.hasher.Hash(ctx, pw)
	if err != nil {
		return err
	}
	now := s.now()
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		if err := tx.SetUserPassword(ctx, userID, hash, now); err != nil {
			return err
		}
		if verify {
			if err := tx.SetUserVerified(ctx, userID, now); err != nil {
				return err
			}
		}
		return tx.DeleteUserSessions(ctx, userID)
	})
}

// trimmedLen is a string's length in characters after trimming.
func trimmedLen(s string) (string, int) {
	s = strings.TrimSpace(s)
	return s, utf8.RuneCountInString(s)
}
