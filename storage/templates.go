package storage

import (
	"context"
	"database/sql"
	"time"
)

// Template is a stored message template. Description, FromName and ReplyTo
// are nil when not set.
type Template struct {
	ID          string
	ProjectID   string
	Name        string
	Description *string
	Subject     string
	Body        string
	From        string
	FromDomain  string // the domain of From, A-labels
	FromName    *string
	ReplyTo     *string
	Type        string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

const templateColumns = `id, project_id, name, description, subject, body, from_email, from_domain,
	from_name, reply_to, type, created_at, updated_at`

func scanTemplate(s scanner) (Template, error) {
	var t Template
	var desc, fromName, replyTo sql.NullString
	var created, updated int64
	err := s.Scan(&t.ID, &t.ProjectID, &t.Name, &desc, &t.Subject, &t.Body, &t.From, &t.FromDomain,
		&fromName, &replyTo, &t.Type, &created, &updated)
	t.Description, t.FromName, t.ReplyTo = stringPtr(desc), stringPtr(fromName), stringPtr(replyTo)
	t.CreatedAt, t.UpdatedAt = FromMillis(created), FromMillis(updated)
	return t, notFound(err)
}

func stringPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func (t Template) args() []any {
	return []any{t.ID, t.ProjectID, t.Name, t.Description, t.Subject, t.Body, t.From, t.FromDomain,
		t.FromName, t.ReplyTo, t.Type, Millis(t.CreatedAt), Millis(t.UpdatedAt)}
}

// InsertTemplate stores a new template.
func (tx *Tx) InsertTemplate(ctx context.Context, t Template) (err error) {
	defer wrap(&err, "Tx.InsertTemplate")
	_, err = tx.Exec(ctx, `INSERT INTO templates (`+templateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.args()...)
	return err
}

// UpdateTemplate writes every field of a template but its id, project and
// creation time.
func (tx *Tx) UpdateTemplate(ctx context.Context, t Template) (err error) {
	defer wrap(&err, "Tx.UpdateTemplate")
	_, err = tx.Exec(ctx, `UPDATE templates SET name = ?, description = ?, subject = ?, body = ?, from_email = ?,
		from_domain = ?, from_name = ?, reply_to = ?, type = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
		t.Name, t.Description, t.Subject, t.Body, t.From, t.FromDomain, t.FromName, t.ReplyTo, t.Type,
		Millis(t.UpdatedAt), t.ID, t.ProjectID)
	return err
}

// DeleteTemplate removes a template of a project.
func (tx *Tx) DeleteTemplate(ctx context.Context, projectID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteTemplate")
	n, err := affected(tx.Exec(ctx, `DELETE FROM templates WHERE project_id = ? AND id = ?`, projectID, id))
	return n > 0, err
}

// TemplateByID finds a template of a project.
func TemplateByID(ctx context.Context, q Querier, projectID, id string) (_ Template, err error) {
	defer wrap(&err, "TemplateByID")
	return scanTemplate(q.QueryRow(ctx, `SELECT `+templateColumns+` FROM templates WHERE project_id = ? AND id = ?`, projectID, id))
}

// CountTemplatesFromDomain counts a project's templates whose from address
// is at domain.
func CountTemplatesFromDomain(ctx context.Context, q Querier, projectID, domain string) (_ int, err error) {
	defer wrap(&err, "CountTemplatesFromDomain")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM templates WHERE project_id = ? AND from_domain = ?`, projectID, domain).Scan(&n)
	return n, err
}

// TemplateFilter selects templates for a list or a count.
type TemplateFilter struct {
	ProjectID string
	Search    string // substring of the name, case-insensitive; "" for all
	Type      string // "" for every type
}

const templateFilterSQL = ` FROM templates WHERE project_id = ?1
	AND (?2 = '' OR name LIKE ?2 ESCAPE '\')
	AND (?3 = '' OR type = ?3)`

// ListTemplates returns up to limit templates, newest first, after the cursor.
func ListTemplates(ctx context.Context, q Querier, f TemplateFilter, after *Cursor, limit int) (_ []Template, err error) {
	defer wrap(&err, "ListTemplates")
	query := `SELECT ` + templateColumns + templateFilterSQL
	args := []any{f.ProjectID, searchArg(f.Search), f.Type}
	if after != nil {
		query += ` AND (created_at, id) < (?4, ?5)`
		args = append(args, after.Num, after.ID)
	}
	// The bare ? is ?4 or ?6: every argument passed is read (PostgreSQL
	// types each from its use).
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := q.Query(ctx, query, append(args, limit)...)
	return collect(rows, err, scanTemplate)
}

// CountTemplates counts the templates a filter selects.
func CountTemplates(ctx context.Context, q Querier, f TemplateFilter) (_ int, err error) {
	defer wrap(&err, "CountTemplates")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+templateFilterSQL, f.ProjectID, searchArg(f.Search), f.Type).Scan(&n)
	return n, err
}

// TemplateCursor is the cursor that continues a template list after t.
func TemplateCursor(t Template) Cursor {
	return Cursor{Sort: "createdAt", Desc: true, Num: Millis(t.CreatedAt), ID: t.ID}
}
