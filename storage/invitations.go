package storage

import (
	"context"
	"database/sql"
	"time"
)

// Invitation invites an email that has no account yet into a project. Its
// token is only in the link; the row keeps the token's SHA-256.
type Invitation struct {
	TokenHash string
	ProjectID string
	Email     string
	Role      string
	InvitedBy string // "" when the inviting user is gone
	CreatedAt time.Time
	ExpiresAt time.Time
}

const invitationColumns = `token_hash, project_id, email, role, invited_by, created_at, expires_at`

func scanInvitation(s scanner) (Invitation, error) {
	var i Invitation
	var by sql.NullString
	var created, expires int64
	err := s.Scan(&i.TokenHash, &i.ProjectID, &i.Email, &i.Role, &by, &created, &expires)
	i.InvitedBy, i.CreatedAt, i.ExpiresAt = by.String, FromMillis(created), FromMillis(expires)
	return i, notFound(err)
}

// InsertInvitation stores an invitation.
func (tx *Tx) InsertInvitation(ctx context.Context, i Invitation) (err error) {
	defer wrap(&err, "Tx.InsertInvitation")
	var by any
	if i.InvitedBy != "" {
		by = i.InvitedBy
	}
	_, err = tx.Exec(ctx, `INSERT INTO invitations (`+invitationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		i.TokenHash, i.ProjectID, i.Email, i.Role, by, Millis(i.CreatedAt), Millis(i.ExpiresAt))
	return err
}

// UsableInvitation returns an unused, unexpired invitation by its token's
// hash.
func UsableInvitation(ctx context.Context, q Querier, tokenHash string, now time.Time) (_ Invitation, err error) {
	defer wrap(&err, "UsableInvitation")
	return scanInvitation(q.QueryRow(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`, tokenHash, Millis(now)))
}

// UseInvitation marks an invitation used; false when it was already used.
func (tx *Tx) UseInvitation(ctx context.Context, tokenHash string, now time.Time) (_ bool, err error) {
	defer wrap(&err, "Tx.UseInvitation")
	n, err := affected(tx.Exec(ctx, `UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL`,
		Millis(now), tokenHash))
	return n == 1, err
}

// PendingInvitations lists a project's unused, unexpired invitations,
// oldest first.
func PendingInvitations(ctx context.Context, q Querier, projectID string, now time.Time) (_ []Invitation, err error) {
	defer wrap(&err, "PendingInvitations")
	rows, err := q.Query(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE project_id = ? AND used_at IS NULL AND expires_at > ? ORDER BY created_at, email`, projectID, Millis(now))
	return collect(rows, err, scanInvitation)
}

// CountPendingInvitations counts a project's unused, unexpired invitations.
func CountPendingInvitations(ctx context.Context, q Querier, projectID string, now time.Time) (_ int, err error) {
	defer wrap(&err, "CountPendingInvitations")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM invitations WHERE project_id = ? AND used_at IS NULL AND expires_at > ?`,
		projectID, Millis(now)).Scan(&n)
	return n, err
}

// CountInvitationsSince counts the invitations of one email to a project
// made since t, used or not: the per-email cap of invitation mails.
func CountInvitationsSince(ctx context.Context, q Querier, projectID, email string, since time.Time) (_ int, err error) {
	defer wrap(&err, "CountInvitationsSince")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM invitations WHERE project_id = ? AND email = ? AND created_at > ?`,
		projectID, email, Millis(since)).Scan(&n)
	return n, err
}

// WithdrawInvitations makes a project's pending invitations of an email
// unusable; it returns how many there were. The rows stay until they
// expire, so that they still count against the per-email cap.
func (tx *Tx) WithdrawInvitations(ctx context.Context, projectID, email string, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.WithdrawInvitations")
	return affected(tx.Exec(ctx, `UPDATE invitations SET used_at = ? WHERE project_id = ? AND email = ? AND used_at IS NULL`,
		Millis(now), projectID, email))
}

// DeleteExpiredInvitations removes invitations that ended before t, used
// or not.
func (tx *Tx) DeleteExpiredInvitations(ctx context.Context, t time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteExpiredInvitations")
	return affected(tx.Exec(ctx, `DELETE FROM invitations WHERE expires_at <= ?`, Millis(t)))
}
