package app

import (
	"context"

	"github.com/heraldmail/herald/storage"
)

// The kinds of one-time token platform mail carries.
const (
	tokenVerify = "verify"
	tokenReset  = "reset"
)

// systemMailReady reports whether platform mail can be sent: a system
// From is set and its domain is verified in some project.
func (a *App) systemMailReady(ctx context.Context) bool { return false }

// sendUserMail sends a user a verification or reset mail.
func (a *App) sendUserMail(ctx context.Context, u storage.User, kind string) {}
