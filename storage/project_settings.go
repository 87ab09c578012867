package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// ProjectSettings are the fields an ADMIN may change; nil leaves a field.
type ProjectSettings struct {
	Name     *string
	Tracking *string
	Language *string
}

// UpdateProjectSettings changes a project's settings.
func (tx *Tx) UpdateProjectSettings(ctx context.Context, id string, s ProjectSettings, now time.Time) (err error) {
	defer wrap(&err, "Tx.UpdateProjectSettings")
	n, err := affected(tx.Exec(ctx, `UPDATE projects SET name = coalesce(?, name), tracking = coalesce(?, tracking),
		tracking_enabled = coalesce(?, tracking) <> 'DISABLED', language = coalesce(?, language), updated_at = ? WHERE id = ?`,
		s.Name, s.Tracking, s.Tracking, s.Language, Millis(now), id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetProjectDisabled disables or enables a project, with the reason.
func (tx *Tx) SetProjectDisabled(ctx context.Context, id string, disabled bool, reason string, now time.Time) (err error) {
	defer wrap(&err, "Tx.SetProjectDisabled")
	_, err = tx.Exec(ctx, `UPDATE projects SET disabled = ?, disabled_reason = nullif(?, ''), updated_at = ? WHERE id = ?`,
		disabled, reason, Millis(now), id)
	return err
}

// DeleteProject removes a project and, by cascade, everything it owns.
func (tx *Tx) DeleteProject(ctx context.Context, id string) (err error) {
	defer wrap(&err, "Tx.DeleteProject")
	n, err := affected(tx.Exec(ctx, `DELETE FROM projects WHERE id = ?`, id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// The tables with a project_id column.
const (
	projectTablesSQL = `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND c.name = 'project_id' ORDER BY m.name`
	projectTablesPG = `SELECT c.table_name FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.column_name = 'project_id'
		ORDER BY c.table_name`
)

// ResetProject deletes a project's data in every table that has a
// project_id column, except the tables in keep. The list of tables is read
// from the schema, so tables that later migrations add are wiped too unless
// they are named in keep. Foreign keys are checked at commit, when every
// row of the project is gone, so the order of the deletes does not matter.
func (tx *Tx) ResetProject(ctx context.Context, id string, keep map[string]bool) (err error) {
	defer wrap(&err, "Tx.ResetProject")
	// On PostgreSQL every foreign key between a project's rows cascades
	// or sets NULL, so the order of the deletes does not matter there
	// either.
	if tx.pg == nil {
		if _, err := tx.Exec(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
	}
	rows, err := tx.Query(ctx, projectTablesSQL)
	tables, err := collect(rows, err, func(s scanner) (string, error) {
		var n string
		return n, s.Scan(&n)
	})
	if err != nil {
		return err
	}
	if tx.pg != nil {
		// The counters go last: on PostgreSQL the triggers of the other
		// tables' deletes add to them (their rows are upserted, not
		// updated), and would leave negative counts behind.
		tables = append(slices.DeleteFunc(tables, func(t string) bool { return t == "audience_counts" }), "audience_counts")
	}
	for _, t := range tables {
		if keep[t] {
			continue
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`DELETE FROM %q WHERE project_id = ?`, t), id); err != nil {
			return fmt.Errorf("reset %s: %w", t, err)
		}
	}
	return nil
}

// Limits are a project's billing caps per category; nil is no cap.
type Limits struct {
	Workflows     *int64
	Campaigns     *int64
	Transactional *int64
	Inbound       *int64
}

// ProjectLimits reads a project's caps.
func ProjectLimits(ctx context.Context, q Querier, id string) (_ Limits, err error) {
	defer wrap(&err, "ProjectLimits")
	var w, c, t, i sql.NullInt64
	err = q.QueryRow(ctx, `SELECT limit_workflows, limit_campaigns, limit_transactional, limit_inbound FROM projects WHERE id = ?`, id).
		Scan(&w, &c, &t, &i)
	return Limits{Workflows: ptr(w), Campaigns: ptr(c), Transactional: ptr(t), Inbound: ptr(i)}, notFound(err)
}

func ptr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// SetProjectLimits replaces a project's caps.
func (tx *Tx) SetProjectLimits(ctx context.Context, id string, l Limits, now time.Time) (err error) {
	defer wrap(&err, "Tx.SetProjectLimits")
	n, err := affected(tx.Exec(ctx, `UPDATE projects SET limit_workflows = ?, limit_campaigns = ?, limit_transactional = ?,
		limit_inbound = ?, updated_at = ? WHERE id = ?`, l.Workflows, l.Campaigns, l.Transactional, l.Inbound, Millis(now), id))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// Usage counts the emails a project created in [from, to) by source, the
// FAILED and CANCELLED ones aside.
type Usage struct {
	Transactional int64
	Campaigns     int64
	Workflows     int64
}

// ProjectUsage counts a project's emails of [from, to) by source. A
// campaign's test send (no contact, no campaign, its subject prefixed
// "[TEST] ") counts nowhere.
func ProjectUsage(ctx context.Context, q Querier, projectID string, from, to time.Time) (_ Usage, err error) {
	defer wrap(&err, "ProjectUsage")
	var u Usage
	err = q.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE campaign_id IS NULL AND workflow_id IS NULL
			AND NOT (contact_id IS NULL AND subject LIKE '[TEST] %')),
		count(*) FILTER (WHERE campaign_id IS NOT NULL),
		count(*) FILTER (WHERE campaign_id IS NULL AND workflow_id IS NOT NULL)
		FROM emails WHERE project_id = ? AND created_at >= ? AND created_at < ? AND status NOT IN ('FAILED', 'CANCELLED')`,
		projectID, Millis(from), Millis(to)).Scan(&u.Transactional, &u.Campaigns, &u.Workflows)
	return u, err
}
