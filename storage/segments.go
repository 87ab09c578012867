package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Segment types.
const (
	SegmentDynamic = "DYNAMIC"
	SegmentStatic  = "STATIC"
)

// Segment is a named audience: a condition (DYNAMIC) or a list (STATIC).
// Condition is the stored JSON tree, nil for a static segment.
type Segment struct {
	ID              string          `json:"id"`
	ProjectID       string          `json:"projectId"`
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	Type            string          `json:"type"`
	Condition       json.RawMessage `json:"condition"`
	TrackMembership bool            `json:"trackMembership"`
	MemberCount     int             `json:"memberCount"`
	CreatedAt       time.Time       `json:"createdAt"`
	UpdatedAt       time.Time       `json:"updatedAt"`
}

const segmentColumns = `id, project_id, name, description, type, condition, track_membership, member_count, created_at, updated_at`

func scanSegment(s scanner) (Segment, error) {
	var g Segment
	var cond sql.NullString
	var created, updated int64
	err := s.Scan(&g.ID, &g.ProjectID, &g.Name, &g.Description, &g.Type, &cond,
		&g.TrackMembership, &g.MemberCount, &created, &updated)
	if cond.Valid {
		g.Condition = json.RawMessage(cond.String)
	}
	g.CreatedAt, g.UpdatedAt = FromMillis(created), FromMillis(updated)
	return g, notFound(err)
}

func nullableJSON(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return string(raw)
}

// InsertSegment stores a new segment.
func (tx *Tx) InsertSegment(ctx context.Context, g Segment) (err error) {
	defer wrap(&err, "Tx.InsertSegment")
	_, err = tx.Exec(ctx, `INSERT INTO segments (`+segmentColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.ProjectID, g.Name, g.Description, g.Type, nullableJSON(g.Condition),
		g.TrackMembership, g.MemberCount, Millis(g.CreatedAt), Millis(g.UpdatedAt))
	return err
}

// UpdateSegment writes a segment's editable fields and updatedAt.
func (tx *Tx) UpdateSegment(ctx context.Context, g Segment) (err error) {
	defer wrap(&err, "Tx.UpdateSegment")
	_, err = tx.Exec(ctx, `UPDATE segments SET name = ?, description = ?, condition = ?, track_membership = ?,
		updated_at = ? WHERE id = ? AND project_id = ?`,
		g.Name, g.Description, nullableJSON(g.Condition), g.TrackMembership, Millis(g.UpdatedAt), g.ID, g.ProjectID)
	return err
}

// SetSegmentCount caches a segment's member count.
func (tx *Tx) SetSegmentCount(ctx context.Context, id string, count int, at time.Time) (err error) {
	defer wrap(&err, "Tx.SetSegmentCount")
	_, err = tx.Exec(ctx, `UPDATE segments SET member_count = ?, counted_at = ? WHERE id = ?`, count, Millis(at), id)
	return err
}

// DeleteSegment removes a segment and, through foreign keys, its members.
func (tx *Tx) DeleteSegment(ctx context.Context, projectID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteSegment")
	n, err := affected(tx.Exec(ctx, `DELETE FROM segments WHERE project_id = ? AND id = ?`, projectID, id))
	return n > 0, err
}

// SegmentByID finds a segment of a project.
func SegmentByID(ctx context.Context, q Querier, projectID, id string) (_ Segment, err error) {
	defer wrap(&err, "SegmentByID")
	return scanSegment(q.QueryRow(ctx, `SELECT `+segmentColumns+` FROM segments WHERE project_id = ? AND id = ?`, projectID, id))
}

// ListSegments returns a project's segments, newest first.
func ListSegments(ctx context.Context, q Querier, projectID string) (_ []Segment, err error) {
	defer wrap(&err, "ListSegments")
	rows, err := q.Query(ctx, `SELECT `+segmentColumns+` FROM segments WHERE project_id = ?
		ORDER BY created_at DESC, id DESC`, projectID)
	return collect(rows, err, scanSegment)
}

// SegmentRef is what the background refresh needs to know of a segment.
type SegmentRef struct {
	ID, ProjectID, Type string
	TrackMembership     bool
}

// AllSegments lists every segment of every project, oldest first.
func AllSegments(ctx context.Context, q Querier) (_ []SegmentRef, err error) {
	defer wrap(&err, "AllSegments")
	rows, err := q.Query(ctx, `SELECT id, project_id, type, track_membership FROM segments ORDER BY created_at, id`)
	return collect(rows, err, func(s scanner) (SegmentRef, error) {
		var r SegmentRef
		return r, s.Scan(&r.ID, &r.ProjectID, &r.Type, &r.TrackMembership)
	})
}
