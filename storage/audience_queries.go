package storage

import (
	"context"
	"database/sql"
	"strings"
)

// Audience SQL varies with the shape of a client's tree, so it runs
// unprepared: the statement caches of the reader pool and of the writer
// keep every text they prepare for the connection's lifetime, and would
// grow without bound.

func queryAdhoc(ctx context.Context, q Querier, query string, args ...any) (*sql.Rows, error) {
	if e := engineOf(q); e != nil {
		query = e.text(query)
	}
	switch v := q.(type) {
	case scanQuerier:
		return v.adhoc(ctx, query, args...)
	case readQuerier:
		return v.db.reader.QueryContext(ctx, query, args...)
	case *Tx:
		return v.conn.QueryContext(ctx, query, args...)
	}
	return q.Query(ctx, query, args...)
}

func queryRowAdhoc(ctx context.Context, q Querier, query string, args ...any) *sql.Row {
	if e := engineOf(q); e != nil {
		query = e.text(query)
	}
	switch v := q.(type) {
	case scanQuerier:
		return v.adhocRow(ctx, query, args...)
	case readQuerier:
		return v.db.reader.QueryRowContext(ctx, query, args...)
	case *Tx:
		return v.conn.QueryRowContext(ctx, query, args...)
	}
	return q.QueryRow(ctx, query, args...)
}

// CountAudience counts the audience's contacts.
func CountAudience(ctx context.Context, q Querier, a Audience) (_ int, err error) {
	defer wrap(&err, "CountAudience")
	pg := engineOf(q) != nil
	query, args, ok := a.storedCountSQL(pg)
	// No bitmaps on PostgreSQL yet: its counts are SQL's.
	if s, scan := q.(scanQuerier); scan && !ok && !pg {
		if n, ok, err := s.db.bitmapCount(ctx, a); ok || err != nil {
			return n, err
		}
	}
	if !ok {
		query, args, ok = a.complementCountSQL(pg)
	}
	if ok {
		var n int
		err := queryRowAdhoc(ctx, q, query, args...).Scan(&n)
		return n, err
	}
	set, args := a.setSQL("", "", true, pg)
	var n int
	err = queryRowAdhoc(ctx, q, `SELECT COUNT(*) FROM (`+set+`) AS s`, args...).Scan(&n)
	return n, err
}

// AudiencePage returns contacts of the audience, newest first, skipping
// offset of them: the page lists of GET /segments/{id}/contacts.
func AudiencePage(ctx context.Context, q Querier, a Audience, offset, limit int) (_ []Contact, err error) {
	defer wrap(&err, "AudiencePage")
	pg := engineOf(q) != nil
	if s, scan := q.(scanQuerier); scan && !pg {
		if page, ok, err := s.db.bitmapPage(ctx, a, offset, limit); ok || err != nil {
			return page, err
		}
	}
	if page, err := audiencePageNewest(ctx, q, a, offset, limit); err != nil || len(page) == limit {
		return page, err
	}
	set, args := a.setSQL("", "", true, pg)
	query := `SELECT ` + contactColumns + ` FROM contacts WHERE project_id = ? AND id IN (` + set + `)
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	args = append(append([]any{a.ProjectID}, args...), limit, offset)
	rows, err := queryAdhoc(ctx, q, query, args...)
	return collect(rows, err, scanContact)
}

// audiencePageNewest looks for the page among the project's newest
// contacts only, probing each for membership (every read of the condition
// becomes a lookup of that contact). An early page of an audience that is
// not rare fills from the first few hundred contacts, where the whole-set
// query would build and sort the audience first: at a million contacts,
// milliseconds instead of seconds. A page it cannot fill (a rare audience,
// a late page) is left to the whole-set query.
func audiencePageNewest(ctx context.Context, q Querier, a Audience, offset, limit int) ([]Contact, error) {
	window := min(max(2000, 100*(offset+limit)), 50_000)
	b := &setBuilder{projectID: a.ProjectID, boundCol: "newest.id", pg: engineOf(q) != nil}
	set, args := a.build(b)
	query := `SELECT ` + prefixColumns("c.", contactColumns) + ` FROM
		(SELECT id, created_at FROM contacts WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?) AS newest
		JOIN contacts AS c ON c.id = newest.id
		WHERE EXISTS (` + set + `)
		ORDER BY newest.created_at DESC, newest.id DESC LIMIT ? OFFSET ?`
	args = append(append([]any{a.ProjectID, window}, args...), limit, offset)
	rows, err := queryAdhoc(ctx, q, query, args...)
	return collect(rows, err, scanContact)
}

// AudienceBatch returns up to limit contacts of the audience whose id is
// greater than after ("" to start), in id order: keyset batches for a
// fan-out. The bound is pushed into every index read, so a batch costs its
// own size for tests on equality, not the size of the whole audience.
func AudienceBatch(ctx context.Context, q Querier, a Audience, after string, limit int) (_ []Contact, err error) {
	defer wrap(&err, "AudienceBatch")
	set, args := a.setSQL(">", after, false, engineOf(q) != nil)
	query := `SELECT ` + contactColumns + ` FROM contacts WHERE id IN (` + set + ` ORDER BY 1 LIMIT ?) ORDER BY id`
	rows, err := queryAdhoc(ctx, q, query, append(args, limit)...)
	return collect(rows, err, scanContact)
}

// AudienceHas reports whether one contact belongs to the audience: every
// read becomes a point lookup on that contact's id.
func AudienceHas(ctx context.Context, q Querier, a Audience, contactID string) (_ bool, err error) {
	defer wrap(&err, "AudienceHas")
	set, args := a.setSQL("=", contactID, false, engineOf(q) != nil)
	var ok bool
	err = queryRowAdhoc(ctx, q, `SELECT EXISTS (`+set+`)`, args...).Scan(&ok)
	return ok, err
}

// AudienceIDs returns the ids of the audience's contacts, in id order.
func AudienceIDs(ctx context.Context, q Querier, a Audience) (_ []string, err error) {
	defer wrap(&err, "AudienceIDs")
	set, args := a.setSQL("", "", true, engineOf(q) != nil)
	rows, err := queryAdhoc(ctx, q, `SELECT cid FROM (`+set+`) AS s ORDER BY 1`, args...)
	return collect(rows, err, scanString)
}

// ExplainAudienceCount returns the plan for CountAudience, one line per
// step, so that tests can check which indexes a count reads: SQLite's
// EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN lines.
func ExplainAudienceCount(ctx context.Context, q Querier, a Audience) (_ []string, err error) {
	defer wrap(&err, "ExplainAudienceCount")
	pg := engineOf(q) != nil
	set, args := a.setSQL("", "", true, pg)
	query := `SELECT COUNT(*) FROM (` + set + `) AS s`
	if cq, cargs, ok := a.storedCountSQL(pg); ok {
		query, args = cq, cargs
	} else if cq, cargs, ok := a.complementCountSQL(pg); ok {
		query, args = cq, cargs
	}
	if pg {
		rows, err := queryAdhoc(ctx, q, `EXPLAIN `+query, args...)
		return collect(rows, err, scanString)
	}
	rows, err := queryAdhoc(ctx, q, `EXPLAIN QUERY PLAN `+query, args...)
	return collect(rows, err, func(s scanner) (string, error) {
		var id, parent, unused int
		var detail string
		err := s.Scan(&id, &parent, &unused, &detail)
		return detail, err
	})
}

// prefixColumns qualifies each column of a list with a table alias.
func prefixColumns(prefix, columns string) string {
	cols := strings.Split(columns, ", ")
	for i, c := range cols {
		cols[i] = prefix + c
	}
	return strings.Join(cols, ", ")
}

func scanString(s scanner) (string, error) {
	var v string
	return v, s.Scan(&v)
}
