package accounts

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// Me is GET /users/@me: the caller, and for the administrator the
// installation's warnings (always an array for them, absent for others).
type Me struct {
	User
	Warnings *[]string `json:"warnings,omitempty"` // nil for everyone but the administrator
}

// Admin reports whether the caller is the installation's administrator.
func (acc Access) Admin() bool { return acc.user != nil && acc.user.Admin }

// Me returns the caller; the administrator also gets the installation's
// warnings.
func (s *Service) Me(ctx context.Context, acc Access) Me {
	me := Me{User: userView(*acc.user)}
	if acc.Admin() {
		w := s.InstallationWarnings(ctx)
		me.Warnings = &w
	}
	return me
}

// Warnings about platform mail: what a user who forgot their password
// meets when no mail can reach them.
const (
	WarningNoSystemMail = "No system mail is configured (HERALD_SYSTEM_FROM): Herald sends no email verification, " +
		"password reset or invitation mail. Users who forget their password must ask you " +
		"(herald user reset-password); invitation links are shown to whoever invites."
	WarningSystemMailUnverified = "HERALD_SYSTEM_FROM is set, but its domain is not verified in any project: " +
		"no verification, password reset or invitation mail is sent until it is."
)

// InstallationWarnings are the problems an administrator should know of:
// platform mail first, then the configuration's and the delivery checks'
// (Options.Warnings). Never nil.
func (s *Service) InstallationWarnings(ctx context.Context) []string {
	out := []string{}
	switch {
	case s.opts.SystemFrom == "":
		out = append(out, WarningNoSystemMail)
	case !s.notify.Ready(ctx):
		out = append(out, WarningSystemMailUnverified)
	}
	return append(out, s.warnings(ctx)...)
}

// SeesProject reports whether the caller may read what belongs to a
// project: its key, a member's session, and, for the platform mail's
// hidden project, the administrator.
func (s *Service) SeesProject(ctx context.Context, acc Access, projectID string) (_ bool, err error) {
	defer apierr.Wrap(&err, "accounts.SeesProject")
	switch {
	case projectID == "":
		return false, nil
	case acc.user == nil:
		return acc.Project.ID == projectID, nil
	case projectID == SystemProjectID:
		return acc.Admin(), nil
	}
	_, err = storage.MemberOf(ctx, s.db.Reader(), projectID, acc.user.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
