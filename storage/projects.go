package storage

import (
	"context"
	"time"
)

// Project is a tenant: everything else belongs to one.
type Project struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	Public          string    `json:"public"`
	Secret          string    `json:"secret"`
	TrackingEnabled bool      `json:"trackingEnabled"`
	Disabled        bool      `json:"disabled"`
	DisabledReason  string    `json:"disabledReason,omitempty"`
	Tracking        string    `json:"tracking"` // ENABLED, MARKETING_ONLY or DISABLED
	Language        string    `json:"language"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
}

const projectColumns = `id, name, public_key, secret_key, tracking_enabled, disabled, created_at, updated_at,
	coalesce(disabled_reason, ''), tracking, language`

func scanProject(s scanner) (Project, error) {
	var p Project
	var created, updated int64
	err := s.Scan(&p.ID, &p.Name, &p.Public, &p.Secret, &p.TrackingEnabled, &p.Disabled, &created, &updated,
		&p.DisabledReason, &p.Tracking, &p.Language)
	p.CreatedAt, p.UpdatedAt = FromMillis(created), FromMillis(updated)
	return p, notFound(err)
}

// InsertProject stores a new project.
func (tx *Tx) InsertProject(ctx context.Context, p Project) (err error) {
	defer wrap(&err, "Tx.InsertProject")
	if p.Tracking == "" {
		p.Tracking = "ENABLED"
		if !p.TrackingEnabled {
			p.Tracking = "DISABLED"
		}
	}
	if p.Language == "" {
		p.Language = "en"
	}
	_, err = tx.Exec(ctx, `INSERT INTO projects (id, name, public_key, secret_key, tracking_enabled, disabled,
		created_at, updated_at, tracking, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.Name, p.Public, p.Secret, p.TrackingEnabled, p.Disabled, Millis(p.CreatedAt), Millis(p.UpdatedAt),
		p.Tracking, p.Language)
	return err
}

// ReplaceProjectKeys sets a project's key pair.
func (tx *Tx) ReplaceProjectKeys(ctx context.Context, id, public, secret string, now time.Time) (err error) {
	defer wrap(&err, "Tx.ReplaceProjectKeys")
	n, err := affected(tx.Exec(ctx, `UPDATE projects SET public_key = ?, secret_key = ?, updated_at = ? WHERE id = ?`,
		public, secret, Millis(now), id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// ProjectByKey finds the project owning a public or secret key.
func ProjectByKey(ctx context.Context, q Querier, key string) (_ Project, err error) {
	defer wrap(&err, "ProjectByKey")
	return scanProject(q.QueryRow(ctx, `SELECT `+projectColumns+` FROM projects WHERE public_key = ?1 OR secret_key = ?1`, key))
}

// ProjectByID finds a project.
func ProjectByID(ctx context.Context, q Querier, id string) (_ Project, err error) {
	defer wrap(&err, "ProjectByID")
	return scanProject(q.QueryRow(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id))
}

// ListProjects returns every project, oldest first.
func ListProjects(ctx context.Context, q Querier) (_ []Project, err error) {
	defer wrap(&err, "ListProjects")
	rows, err := q.Query(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY created_at, id`)
	return collect(rows, err, scanProject)
}
