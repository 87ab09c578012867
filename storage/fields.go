package storage

import (
	"context"
	"encoding/json"
	"time"
)

// FieldStat describes one custom data key across a project's contacts:
// how many contacts have it and how many of those values are of each kind.
type FieldStat struct {
	Key      string
	Count    int
	Numbers  int
	Booleans int
	Dates    int // text values that read as an ISO 8601 date
}

// ContactFieldStats returns statistics for every data key in use.
func ContactFieldStats(ctx context.Context, q Querier, projectID string) (_ []FieldStat, err error) {
	defer wrap(&err, "ContactFieldStats")
	rows, err := q.Query(ctx, `SELECT je.key, COUNT(*),
			SUM(je.type IN ('integer', 'real')),
			SUM(je.type IN ('true', 'false')),
			SUM(je.type = 'text' AND je.value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
				AND datetime(je.value) IS NOT NULL)
		FROM contacts c, json_each(c.data) je
		WHERE c.project_id = ?
		GROUP BY je.key ORDER BY je.key`, projectID)
	return collect(rows, err, func(s scanner) (FieldStat, error) {
		var f FieldStat
		return f, s.Scan(&f.Key, &f.Count, &f.Numbers, &f.Booleans, &f.Dates)
	})
}

// ValueCount is one distinct value of a data key and how many contacts hold it.
type ValueCount struct {
	Value json.RawMessage
	Count int
}

// ContactFieldValues returns the most frequent distinct values of a key.
func ContactFieldValues(ctx context.Context, q Querier, projectID, key string, limit int) (_ []ValueCount, err error) {
	defer wrap(&err, "ContactFieldValues")
	// json_each gives true and false as the SQL integers 1 and 0, and
	// objects as text, so the JSON text of each value is rebuilt from its
	// type, and values are grouped by type too: true is not 1, nor
	// {"a":1} the string that reads the same.
	rows, err := q.Query(ctx, `SELECT CASE je.type
				WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
				WHEN 'object' THEN je.value WHEN 'array' THEN je.value
				ELSE json_quote(je.value) END, COUNT(*)
		FROM contacts c, json_each(c.data) je
		WHERE c.project_id = ? AND je.key = ?
		GROUP BY je.type, je.value ORDER BY COUNT(*) DESC, je.value LIMIT ?`, projectID, key, limit)
	return collect(rows, err, func(s scanner) (ValueCount, error) {
		var v ValueCount
		var raw string
		err := s.Scan(&raw, &v.Count)
		v.Value = json.RawMessage(raw)
		return v, err
	})
}

// DeleteContactField removes a data key from every contact of a project.
// It applies the merge patch {key: null} (RFC 7396), which deletes exactly
// that key whatever characters it holds (a JSON path would have to quote
// them) and leaves every other value as it was: rebuilding the object from
// json_each would turn true and false into 1 and 0.
func (tx *Tx) DeleteContactField(ctx context.Context, projectID, key string, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteContactField")
	return affected(tx.Exec(ctx, `UPDATE contacts
		SET data = json_patch(data, json_object(?2, NULL)),
		    updated_at = ?3
		WHERE project_id = ?1 AND EXISTS (SELECT 1 FROM json_each(contacts.data) je WHERE je.key = ?2)`,
		projectID, key, Millis(now)))
}
