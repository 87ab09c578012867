package storage

import (
	"context"
	"time"
)

// Member is a user's role in a project.
type Member struct {
	ProjectID string
	UserID    string
	Email     string
	Role      string // OWNER, ADMIN or MEMBER
	CreatedAt time.Time
}

func scanMember(s scanner) (Member, error) {
	var m Member
	var created int64
	err := s.Scan(&m.ProjectID, &m.UserID, &m.Email, &m.Role, &created)
	m.CreatedAt = FromMillis(created)
	return m, notFound(err)
}

const memberSelect = `SELECT m.project_id, m.user_id, u.email, m.role, m.created_at
	FROM project_members m JOIN users u ON u.id = m.user_id`

// InsertMember adds a user to a project; ErrDuplicate when already in.
func (tx *Tx) InsertMember(ctx context.Context, m Member) (err error) {
	defer wrap(&err, "Tx.InsertMember")
	_, err = tx.Exec(ctx, `INSERT INTO project_members (project_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`,
		m.ProjectID, m.UserID, m.Role, Millis(m.CreatedAt))
	if isUniqueViolation(err) {
		return ErrDuplicate
	}
	return err
}

// MemberOf returns a user's membership of a project.
func MemberOf(ctx context.Context, q Querier, projectID, userID string) (_ Member, err error) {
	defer wrap(&err, "MemberOf")
	return scanMember(q.QueryRow(ctx, memberSelect+` WHERE m.project_id = ? AND m.user_id = ?`, projectID, userID))
}

// ListMembers returns a project's members, oldest first.
func ListMembers(ctx context.Context, q Querier, projectID string) (_ []Member, err error) {
	defer wrap(&err, "ListMembers")
	rows, err := q.Query(ctx, memberSelect+` WHERE m.project_id = ? ORDER BY m.created_at, m.user_id`, projectID)
	return collect(rows, err, scanMember)
}

// CountMembers counts a project's members, or its members of one role.
func CountMembers(ctx context.Context, q Querier, projectID, role string) (_ int, err error) {
	defer wrap(&err, "CountMembers")
	var n int
	err = q.QueryRow(ctx, `SELECT count(*) FROM project_members WHERE project_id = ? AND (? = '' OR role = ?)`,
		projectID, role, role).Scan(&n)
	return n, err
}

// CountUserProjects counts the projects a user belongs to.
func CountUserProjects(ctx context.Context, q Querier, userID string) (_ int, err error) {
	defer wrap(&err, "CountUserProjects")
	var n int
	err = q.QueryRow(ctx, `SELECT count(*) FROM project_members WHERE user_id = ?`, userID).Scan(&n)
	return n, err
}

// SetMemberRole changes a member's role.
func (tx *Tx) SetMemberRole(ctx context.Context, projectID, userID, role string) (err error) {
	defer wrap(&err, "Tx.SetMemberRole")
	n, err := affected(tx.Exec(ctx, `UPDATE project_members SET role = ? WHERE project_id = ? AND user_id = ?`, role, projectID, userID))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// DeleteMember removes a user from a project.
func (tx *Tx) DeleteMember(ctx context.Context, projectID, userID string) (err error) {
	defer wrap(&err, "Tx.DeleteMember")
	n, err := affected(tx.Exec(ctx, `DELETE FROM project_members WHERE project_id = ? AND user_id = ?`, projectID, userID))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// UserProject is a project with the user's role in it.
type UserProject struct {
	Project
	Role string
}

// UserProjects returns the projects a user belongs to, oldest first.
func UserProjects(ctx context.Context, q Querier, userID string) (_ []UserProject, err error) {
	defer wrap(&err, "UserProjects")
	rows, err := q.Query(ctx, `SELECT p.id, p.name, p.public_key, p.secret_key, p.tracking_enabled,
		p.disabled, p.created_at, p.updated_at, coalesce(p.disabled_reason, ''), p.tracking, p.language, m.role FROM projects p
		JOIN project_members m ON m.project_id = p.id WHERE m.user_id = ? ORDER BY p.created_at, p.id`, userID)
	return collect(rows, err, func(s scanner) (UserProject, error) {
		var up UserProject
		var created, updated int64
		err := s.Scan(&up.ID, &up.Name, &up.Public, &up.Secret, &up.TrackingEnabled, &up.Disabled, &created, &updated,
			&up.DisabledReason, &up.Tracking, &up.Language, &up.Role)
		up.CreatedAt, up.UpdatedAt = FromMillis(created), FromMillis(updated)
		return up, err
	})
}

// OwnersOf returns the emails of a project's owners.
func OwnersOf(ctx context.Context, q Querier, projectID string) (_ []string, err error) {
	defer wrap(&err, "OwnersOf")
	rows, err := q.Query(ctx, `SELECT u.email FROM project_members m JOIN users u ON u.id = m.user_id
		WHERE m.project_id = ? AND m.role = 'OWNER' ORDER BY m.created_at`, projectID)
	return collect(rows, err, func(s scanner) (string, error) {
		var e string
		return e, s.Scan(&e)
	})
}
