package accounts

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// The operator's user commands (herald user ...).

var errUserNotFound = apierr.NotFound("USER_NOT_FOUND", "No user with this email")

// ResetUserPassword sets a user's password, verifies their email (the
// operator vouches for it) and ends all their sessions.
func (s *Service) ResetUserPassword(ctx context.Context, email, pw string) (_ User, err error) {
	defer apierr.Wrap(&err, "accounts.ResetUserPassword")
	var v apierr.Validation
	p := checkNewPassword(&v, "password", &pw)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	u, err := storage.UserByEmail(ctx, s.db.Reader(), verify.NormalizeEmail(email))
	if errors.Is(err, storage.ErrNotFound) {
		return User{}, errUserNotFound
	}
	if err != nil {
		return User{}, err
	}
	if err := s.setPassword(ctx, u.ID, p, true); err != nil {
		return User{}, err
	}
	s.lockout.reset(u.Email)
	u.EmailVerified = true
	return userView(u), nil
}

// ListUsers returns every user, oldest first.
func (s *Service) ListUsers(ctx context.Context) (_ []User, err error) {
	defer apierr.Wrap(&err, "accounts.ListUsers")
	us, err := storage.ListUsers(ctx, s.db.Reader())
	out := make([]User, 0, len(us))
	for _, u := range us {
		out = append(out, userView(u))
	}
	return out, err
}

// DeleteUser removes a user with their sessions and memberships. Their
// projects stay, whoever else is in them. Deleting the administrator
// makes the oldest remaining user the administrator.
func (s *Service) DeleteUser(ctx context.Context, email string) (err error) {
	defer apierr.Wrap(&err, "accounts.DeleteUser")
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		u, err := storage.UserByEmail(ctx, tx, verify.NormalizeEmail(email))
		if err != nil {
			return err
		}
		if err := tx.DeleteUser(ctx, u.ID); err != nil || !u.Admin {
			return err
		}
		return tx.PassAdmin(ctx)
	})
	if errors.Is(err, storage.ErrNotFound) {
		return errUserNotFound
	}
	return err
}
