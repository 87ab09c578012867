package storage

import (
	"context"
	"errors"
	"time"
)

// User is a person who logs in to the dashboard.
type User struct {
	ID            string
	Email         string
	PasswordHash  string
	EmailVerified bool
	// Admin: the installation's administrator (the first user made on
	// it); at most one user is.
	Admin     bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ErrDuplicate is returned when a unique column already holds the value.
var ErrDuplicate = errors.New("storage: duplicate")

const userColumns = `id, email, password_hash, email_verified, admin, created_at, updated_at`

func scanUser(s scanner) (User, error) {
	var u User
	var created, updated int64
	err := s.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.EmailVerified, &u.Admin, &created, &updated)
	u.CreatedAt, u.UpdatedAt = FromMillis(created), FromMillis(updated)
	return u, notFound(err)
}

// InsertUser stores a new user; ErrDuplicate when the email is taken, or
// when u.Admin and the installation already has its administrator.
func (tx *Tx) InsertUser(ctx context.Context, u User) (err error) {
	defer wrap(&err, "Tx.InsertUser")
	_, err = tx.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.PasswordHash, u.EmailVerified, u.Admin, Millis(u.CreatedAt), Millis(u.UpdatedAt))
	if isUniqueViolation(err) {
		return ErrDuplicate
	}
	return err
}

// UserByEmail finds a user by the stored (lower-cased) email.
func UserByEmail(ctx context.Context, q Querier, email string) (_ User, err error) {
	defer wrap(&err, "UserByEmail")
	return scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
}

// UserByID finds a user.
func UserByID(ctx context.Context, q Querier, id string) (_ User, err error) {
	defer wrap(&err, "UserByID")
	return scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// ListUsers returns every user, oldest first.
func ListUsers(ctx context.Context, q Querier) (_ []User, err error) {
	defer wrap(&err, "ListUsers")
	rows, err := q.Query(ctx, `SELECT `+userColumns+` FROM users ORDER BY created_at, id`)
	return collect(rows, err, scanUser)
}

// HasUsers reports whether the installation has any user yet.
func HasUsers(ctx context.Context, q Querier) (_ bool, err error) {
	defer wrap(&err, "HasUsers")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) AS one`).Scan(&n)
	return n > 0, err
}

// PassAdmin makes the oldest user the administrator when no user is one
// (the administrator was deleted).
func (tx *Tx) PassAdmin(ctx context.Context) (err error) {
	defer wrap(&err, "Tx.PassAdmin")
	_, err = tx.Exec(ctx, `UPDATE users SET admin = TRUE WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)
		AND NOT EXISTS (SELECT 1 FROM users WHERE admin = TRUE)`)
	return err
}

// SetUserPassword replaces a user's password hash.
func (tx *Tx) SetUserPassword(ctx context.Context, id, hash string, now time.Time) (err error) {
	defer wrap(&err, "Tx.SetUserPassword")
	n, err := affected(tx.Exec(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, Millis(now), id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetUserVerified marks a user's email as verified.
func (tx *Tx) SetUserVerified(ctx context.Context, id string, now time.Time) (err error) {
	defer wrap(&err, "Tx.SetUserVerified")
	_, err = tx.Exec(ctx, `UPDATE users SET email_verified = TRUE, updated_at = ? WHERE id = ?`, Millis(now), id)
	return err
}

// DeleteUser removes a user with their sessions, tokens and memberships.
func (tx *Tx) DeleteUser(ctx context.Context, id string) (err error) {
	defer wrap(&err, "Tx.DeleteUser")
	n, err := affected(tx.Exec(ctx, `DELETE FROM users WHERE id = ?`, id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// Session is a dashboard login, found by the hash of its token.
type Session struct {
	TokenHash string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// InsertSession stores a session.
func (tx *Tx) InsertSession(ctx context.Context, s Session) (err error) {
	defer wrap(&err, "Tx.InsertSession")
	_, err = tx.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		s.TokenHash, s.UserID, Millis(s.CreatedAt), Millis(s.ExpiresAt))
	return err
}

// SessionUser returns the user of an unexpired session.
func SessionUser(ctx context.Context, q Querier, tokenHash string, now time.Time) (_ User, err error) {
	defer wrap(&err, "SessionUser")
	return scanUser(q.QueryRow(ctx, `SELECT u.id, u.email, u.password_hash, u.email_verified, u.admin, u.created_at, u.updated_at
		FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?`,
		tokenHash, Millis(now)))
}

// DeleteSession ends one session.
func (tx *Tx) DeleteSession(ctx context.Context, tokenHash string) (err error) {
	defer wrap(&err, "Tx.DeleteSession")
	_, err = tx.Exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
	return err
}

// DeleteUserSessions ends every session of a user.
func (tx *Tx) DeleteUserSessions(ctx context.Context, userID string) (err error) {
	defer wrap(&err, "Tx.DeleteUserSessions")
	_, err = tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	return err
}

// DeleteExpiredSessions removes sessions that ended before now.
func (tx *Tx) DeleteExpiredSessions(ctx context.Context, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteExpiredSessions")
	return affected(tx.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, Millis(now)))
}

// UserToken is a one-time token of platform mail.
type UserToken struct {
	TokenHash string
	UserID    string
	Kind      string // verify or reset
	CreatedAt time.Time
	ExpiresAt time.Time
}

// InsertUserToken stores a token.
func (tx *Tx) InsertUserToken(ctx context.Context, t UserToken) (err error) {
	defer wrap(&err, "Tx.InsertUserToken")
	_, err = tx.Exec(ctx, `INSERT INTO user_tokens (token_hash, user_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		t.TokenHash, t.UserID, t.Kind, Millis(t.CreatedAt), Millis(t.ExpiresAt))
	return err
}

// CountUserTokensSince counts the tokens of a kind made for a user since t.
func CountUserTokensSince(ctx context.Context, q Querier, userID, kind string, since time.Time) (_ int, err error) {
	defer wrap(&err, "CountUserTokensSince")
	var n int
	err = q.QueryRow(ctx, `SELECT count(*) FROM user_tokens WHERE user_id = ? AND kind = ? AND created_at > ?`,
		userID, kind, Millis(since)).Scan(&n)
	return n, err
}

// UsableUserToken returns the user id of an unused, unexpired token.
func UsableUserToken(ctx context.Context, q Querier, tokenHash, kind string, now time.Time) (_ string, err error) {
	defer wrap(&err, "UsableUserToken")
	var userID string
	err = q.QueryRow(ctx, `SELECT user_id FROM user_tokens WHERE token_hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?`,
		tokenHash, kind, Millis(now)).Scan(&userID)
	return userID, notFound(err)
}

// UseUserToken marks a token used.
func (tx *Tx) UseUserToken(ctx context.Context, tokenHash string, now time.Time) (err error) {
	defer wrap(&err, "Tx.UseUserToken")
	_, err = tx.Exec(ctx, `UPDATE user_tokens SET used_at = ? WHERE token_hash = ?`, Millis(now), tokenHash)
	return err
}

// DeleteExpiredUserTokens removes tokens that ended before t.
func (tx *Tx) DeleteExpiredUserTokens(ctx context.Context, t time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteExpiredUserTokens")
	return affected(tx.Exec(ctx, `DELETE FROM user_tokens WHERE expires_at <= ?`, Millis(t)))
}
