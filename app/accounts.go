package app

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

	"github.com/heraldmail/herald/app/password"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// AccountOptions configure the account side: users, sessions, platform
// mail. The zero value is a working default.
type AccountOptions struct {
	SessionTTL     time.Duration // default 168h
	DisableSignups bool
	// SystemFrom is the From address of platform mail (verification,
	// password reset, reputation notices); "" sends none.
	SystemFrom  string
	AutoDisable bool // disable a project whose reputation is critical
	Password    password.Params
	// HashConcurrency bounds the password hashes run at once; default
	// GOMAXPROCS.
	HashConcurrency int
}

// Input limits of what a person types.
const (
	MaxEmailLength       = 254
	MinPasswordLength    = 8
	MaxPasswordLength    = 256
	MaxProjectNameLength = 100
	MaxProjectsPerUser   = 100
	MaxMembersPerProject = 1000
)

// accounts is the state of the account side.
type accounts struct {
	opts    AccountOptions
	hasher  *password.Hasher
	lockout *lockout
}

func newAccounts(o AccountOptions, now func() time.Time) *accounts {
	if o.SessionTTL <= 0 {
		o.SessionTTL = 168 * time.Hour
	}
	return &accounts{opts: o, hasher: password.New(o.Password, o.HashConcurrency), lockout: newLockout(now)}
}

// AccountSettings are what the HTTP layer needs to know of the account
// configuration.
type AccountSettings struct {
	BaseURL        string
	SessionTTL     time.Duration
	SignupsEnabled bool
	SystemMail     bool
}

// AccountSettings returns the account configuration.
func (a *App) AccountSettings() AccountSettings {
	o := a.accounts.opts
	return AccountSettings{BaseURL: a.baseURL, SessionTTL: o.SessionTTL, SignupsEnabled: !o.DisableSignups,
		SystemMail: o.SystemFrom != ""}
}

// PasswordParams are the argon2id parameters new hashes are made with.
func (a *App) PasswordParams() password.Params { return a.accounts.hasher.Params() }

// User is a dashboard user as the API shows them.
type User struct {
	ID            string    `json:"id"`
	Email         string    `json:"email"`
	EmailVerified bool      `json:"emailVerified"`
	CreatedAt     time.Time `json:"createdAt"`
}

func userView(u storage.User) User {
	return User{ID: u.ID, Email: u.Email, EmailVerified: u.EmailVerified, CreatedAt: u.CreatedAt}
}

// Session is a new login: the user and the token for the cookie.
type Session struct {
	User      User
	Token     string // the cookie's value; only its hash is stored
	ExpiresAt time.Time
}

// checkCredentials validates an email and a new password.
func checkCredentials(v *Validation, email, pw *string, pwField string) (string, string) {
	var e, p string
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	} else {
		e = NormalizeEmail(*email)
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

func checkNewPassword(v *Validation, field string, pw *string) string {
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

// ErrSignupsDisabled answers POST /auth/signup when signups are off,
// before any other check of the request.
var ErrSignupsDisabled = &Error{Kind: KindForbidden, Code: "SIGNUPS_DISABLED", Message: "Signups are disabled on this server",
	Suggestion: "Ask the operator to create your account (herald user create)"}

// Signup creates a user and logs them in. It makes no project.
func (a *App) Signup(ctx context.Context, email, pw *string) (Session, error) {
	if a.accounts.opts.DisableSignups {
		return Session{}, ErrSignupsDisabled
	}
	u, err := a.createUser(ctx, email, pw, "password", a.systemMailReady(ctx))
	if err != nil {
		return Session{}, err
	}
	if !u.EmailVerified {
		a.sendUserMail(ctx, u, tokenVerify)
	}
	return a.newSession(ctx, u)
}

// CreateUser makes a verified user, whatever the signup setting (the
// operator's `herald user create`).
func (a *App) CreateUser(ctx context.Context, email, pw string) (User, error) {
	u, err := a.createUser(ctx, &email, &pw, "password", false)
	return userView(u), err
}

func (a *App) createUser(ctx context.Context, email, pw *string, pwField string, needsVerification bool) (storage.User, error) {
	var v Validation
	e, p := checkCredentials(&v, email, pw, pwField)
	if err := v.Err(); err != nil {
		return storage.User{}, err
	}
	hash, err := a.accounts.hasher.Hash(ctx, p)
	if err != nil {
		return storage.User{}, err
	}
	now := a.now()
	u := storage.User{ID: newID(), Email: e, PasswordHash: hash, EmailVerified: !needsVerification, CreatedAt: now, UpdatedAt: now}
	err = a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertUser(ctx, u) })
	if errors.Is(err, storage.ErrDuplicate) {
		return u, &Error{Kind: KindConflict, Code: "EMAIL_TAKEN", Message: "An account with this email already exists"}
	}
	return u, err
}

var errInvalidCredentials = &Error{Kind: KindUnauthorized, Code: "INVALID_CREDENTIALS", Message: "Invalid email or password"}

// Login checks an email and password and starts a session. An unknown
// email and a wrong password cost the same hash and get the same answer.
func (a *App) Login(ctx context.Context, email, pw *string) (Session, error) {
	var v Validation
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	}
	if pw == nil {
		v.Add("password", "invalid_type", "Required", "undefined")
	}
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	e := NormalizeEmail(*email)
	if err := a.accounts.lockout.check(e); err != nil {
		return Session{}, err
	}
	u, err := storage.UserByEmail(ctx, a.db.Reader(), e)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return Session{}, err
	}
	ok, err := a.accounts.hasher.Check(ctx, u.PasswordHash, *pw)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		a.accounts.lockout.fail(e)
		return Session{}, errInvalidCredentials
	}
	a.accounts.lockout.reset(e)
	return a.newSession(ctx, u)
}

func (a *App) newSession(ctx context.Context, u storage.User) (Session, error) {
	token, hash := newSecretToken()
	now := a.now()
	s := storage.Session{TokenHash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(a.accounts.opts.SessionTTL)}
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
func (a *App) Logout(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return a.db.Write(ctx, func(tx *storage.Tx) error { return tx.DeleteSession(ctx, hashToken(token)) })
}

var errBadSession = &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: "Not logged in, or the session has ended",
	Suggestion: "Log in again (POST /auth/login)"}

// sessionUser returns the user of a live session.
func (a *App) sessionUser(ctx context.Context, token string) (storage.User, error) {
	if token == "" || len(token) > 100 {
		return storage.User{}, errBadSession
	}
	u, err := storage.SessionUser(ctx, a.db.Reader(), hashToken(token), a.now())
	if errors.Is(err, storage.ErrNotFound) {
		return u, errBadSession
	}
	return u, err
}

// ChangePassword checks the current password, sets the new one and ends
// every session of the user, the caller's included; it returns the
// caller's new session.
func (a *App) ChangePassword(ctx context.Context, acc Access, current, next *string) (Session, error) {
	u := *acc.user
	var v Validation
	if current == nil {
		v.Add("currentPassword", "invalid_type", "Required", "undefined")
	}
	p := checkNewPassword(&v, "newPassword", next)
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	if err := a.accounts.lockout.check(u.Email); err != nil {
		return Session{}, err
	}
	ok, err := a.accounts.hasher.Check(ctx, u.PasswordHash, *current)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		a.accounts.lockout.fail(u.Email)
		return Session{}, Invalid(FieldError{Field: "currentPassword", Code: "invalid_password", Message: "Current password is wrong"})
	}
	a.accounts.lockout.reset(u.Email)
	if err := a.setPassword(ctx, u.ID, p, false); err != nil {
		return Session{}, err
	}
	return a.newSession(ctx, u)
}

// setPassword hashes and stores a password and ends every session of the
// user in the same commit.
func (a *App) setPassword(ctx context.Context, userID, pw string, verify bool) error {
	hash, err := a.accounts.hasher.Hash(ctx, pw)
	if err != nil {
		return err
	}
	now := a.now()
	return a.db.Write(ctx, func(tx *storage.Tx) error {
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

// Me returns the caller.
func (a *App) Me(acc Access) User { return userView(*acc.user) }

// trimmedLen is a string's length in characters after trimming.
func trimmedLen(s string) (string, int) {
	s = strings.TrimSpace(s)
	return s, utf8.RuneCountInString(s)
}
