package app

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/storage"
)

// The operator's user commands (herald user ...).

var errUserNotFound = NotFound("USER_NOT_FOUND", "No user with this email")

// ResetUserPassword sets a user's password, verifies their email (the
// operator vouches for it) and ends all their sessions.
func (a *App) ResetUserPassword(ctx context.Context, email, pw string) (User, error) {
	var v Validation
	p := checkNewPassword(&v, "password", &pw)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	u, err := storage.UserByEmail(ctx, a.db.Reader(), NormalizeEmail(email))
	if errors.Is(err, storage.ErrNotFound) {
		return User{}, errUserNotFound
	}
	if err != nil {
		return User{}, err
	}
	if err := a.setPassword(ctx, u.ID, p, true); err != nil {
		return User{}, err
	}
	a.accounts.lockout.reset(u.Email)
	u.EmailVerified = true
	return userView(u), nil
}

// ListUsers returns every user, oldest first.
func (a *App) ListUsers(ctx context.Context) ([]User, error) {
	us, err := storage.ListUsers(ctx, a.db.Reader())
	out := make([]User, 0, len(us))
	for _, u := range us {
		out = append(out, userView(u))
	}
	return out, err
}

// DeleteUser removes a user with their sessions and memberships. Their
// projects stay, whoever else is in them.
func (a *App) DeleteUser(ctx context.Context, email string) error {
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		u, err := storage.UserByEmail(ctx, tx, NormalizeEmail(email))
		if err != nil {
			return err
		}
		return tx.DeleteUser(ctx, u.ID)
	})
	if errors.Is(err, storage.ErrNotFound) {
		return errUserNotFound
	}
	return err
}
