package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// SandboxMessage is a message the sandbox captured instead of sending it.
type SandboxMessage struct {
	ID         string
	ProjectID  string // "" when no email carries its Message-ID
	EmailID    string // ""  likewise
	MailFrom   string // the envelope sender
	HeaderFrom string
	Recipients []string // the envelope recipients
	Subject    string
	DKIM       string // pass | fail
	Raw        []byte // nil when listed
	CreatedAt  time.Time
}

func scanSandboxMessage(s scanner, withRaw bool) (SandboxMessage, error) {
	var m SandboxMessage
	var project, email sql.NullString
	var recipients string
	var created int64
	dest := []any{&m.ID, &project, &email, &m.MailFrom, &m.HeaderFrom, &recipients, &m.Subject, &m.DKIM, &created}
	if withRaw {
		dest = append(dest, &m.Raw)
	}
	if err := s.Scan(dest...); err != nil {
		return m, notFound(err)
	}
	m.ProjectID, m.EmailID, m.CreatedAt = project.String, email.String, FromMillis(created)
	return m, json.Unmarshal([]byte(recipients), &m.Recipients)
}

const sandboxColumns = `id, project_id, email_id, mail_from, header_from, recipients, subject, dkim, created_at`

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// InsertSandboxMessage stores a captured message, then drops the oldest
// messages beyond the newest keep or beyond maxBytes of raw messages in
// all (the newest message is always kept).
func (tx *Tx) InsertSandboxMessage(ctx context.Context, m SandboxMessage, keep int, maxBytes int64) (err error) {
	defer wrap(&err, "Tx.InsertSandboxMessage")
	recipients, err := json.Marshal(m.Recipients)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO sandbox_messages (`+sandboxColumns+`, size, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, nullString(m.ProjectID), nullString(m.EmailID), m.MailFrom, m.HeaderFrom, string(recipients), m.Subject,
		m.DKIM, Millis(m.CreatedAt), len(m.Raw), m.Raw)
	if err != nil {
		return err
	}
	// The running total newest first: a row is dropped once it is past
	// the count or its bytes take the total past the bound.
	_, err = tx.Exec(ctx, `DELETE FROM sandbox_messages WHERE id IN (
		SELECT id FROM (
			SELECT id, ROW_NUMBER() OVER w AS n, SUM(size) OVER w AS total
			FROM sandbox_messages WINDOW w AS (ORDER BY created_at DESC, id DESC)
		) AS ranked WHERE n > 1 AND (n > ? OR total > ?))`, keep, maxBytes)
	return err
}

// SandboxFilter selects captured messages: those of the projects named.
type SandboxFilter struct {
	ProjectIDs []string
}

// ListSandboxMessages returns up to limit captured messages of the
// filter's projects, newest first, after the cursor; without their bytes.
func ListSandboxMessages(ctx context.Context, q Querier, f SandboxFilter, after *Cursor, limit int) (_ []SandboxMessage, err error) {
	defer wrap(&err, "ListSandboxMessages")
	// Two projects at most (the caller's, and the platform mail's for the
	// administrator): the second repeats the first when there is one.
	p1, p2 := sandboxProjects(f)
	query := `SELECT ` + sandboxColumns + ` FROM sandbox_messages WHERE project_id IN (?1, ?2)`
	args := []any{p1, p2}
	if after != nil {
		query += ` AND (created_at, id) < (?3, ?4)`
		args = append(args, after.Num, after.ID)
	}
	// The bare ? is ?3 or ?5: every argument passed is read (PostgreSQL
	// types each from its use).
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := q.Query(ctx, query, append(args, limit)...)
	return collect(rows, err, func(s scanner) (SandboxMessage, error) { return scanSandboxMessage(s, false) })
}

// CountSandboxMessages counts the captured messages of the filter's
// projects.
func CountSandboxMessages(ctx context.Context, q Querier, f SandboxFilter) (_ int, err error) {
	defer wrap(&err, "CountSandboxMessages")
	p1, p2 := sandboxProjects(f)
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM sandbox_messages WHERE project_id IN (?, ?)`, p1, p2).Scan(&n)
	return n, err
}

func sandboxProjects(f SandboxFilter) (string, string) {
	switch len(f.ProjectIDs) {
	case 0:
		return "", ""
	case 1:
		return f.ProjectIDs[0], f.ProjectIDs[0]
	}
	return f.ProjectIDs[0], f.ProjectIDs[1]
}

// SandboxMessageByID finds a captured message with its bytes.
func SandboxMessageByID(ctx context.Context, q Querier, id string) (_ SandboxMessage, err error) {
	defer wrap(&err, "SandboxMessageByID")
	return scanSandboxMessage(q.QueryRow(ctx, `SELECT `+sandboxColumns+`, raw FROM sandbox_messages WHERE id = ?`, id), true)
}

// SandboxMessageCursor continues a list of captured messages after m.
func SandboxMessageCursor(m SandboxMessage) Cursor {
	return Cursor{Sort: "createdAt", Desc: true, Num: Millis(m.CreatedAt), ID: m.ID}
}

// DomainKeyBySelector finds the sender domain, in any project, whose DKIM
// key is published under selector._domainkey.name: selectors of one name
// never repeat across projects (senders' freeSelector).
func DomainKeyBySelector(ctx context.Context, q Querier, name, selector string) (_ Domain, err error) {
	defer wrap(&err, "DomainKeyBySelector")
	return scanDomain(q.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE domain = ? AND dkim_selector = ?
		ORDER BY created_at LIMIT 1`, name, selector))
}
