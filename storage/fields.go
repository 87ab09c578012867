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

const (
	contactFieldStatsSQL = `SELECT je.key, COUNT(*),
			SUM(je.type IN ('integer', 'real')),
			SUM(je.type IN ('true', 'false')),
			SUM(je.type = 'text' AND je.value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
				AND datetime(je.value) IS NOT NULL)
		FROM contacts c, json_each(c.data) je
		WHERE c.project_id = ?
		GROUP BY je.key ORDER BY je.key`
	// A date is what the date index of contact_values reads as one
	// (herald_date_ms, SQLite's own parse) where SQLite asks datetime().
	contactFieldStatsPG = `SELECT je.key, COUNT(*),
			COUNT(*) FILTER (WHERE json_typeof(je.value) = 'number'),
			COUNT(*) FILTER (WHERE json_typeof(je.value) = 'boolean'),
			COUNT(*) FILTER (WHERE json_typeof(je.value) = 'string' AND herald_date_ms(je.value #>> '{}') IS NOT NULL)
		FROM contacts c, json_each(c.data::json) je
		WHERE c.project_id = ?
		GROUP BY je.key ORDER BY je.key`
)

// ContactFieldStats returns statistics for every data key in use.
func ContactFieldStats(ctx context.Context, q Querier, projectID string) (_ []FieldStat, err error) {
	defer wrap(&err, "ContactFieldStats")
	rows, err := q.Query(ctx, contactFieldStatsSQL, projectID)
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

const (
	contactFieldValuesSQL = `SELECT CASE je.type
				WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
				WHEN 'object' THEN je.value WHEN 'array' THEN je.value
				ELSE json_quote(je.value) END, COUNT(*)
		FROM contacts c, json_each(c.data) je
		WHERE c.project_id = ? AND je.key = ?
		GROUP BY je.type, je.value ORDER BY COUNT(*) DESC, je.value LIMIT ?`
	// PostgreSQL's json_each gives each value as its JSON text already;
	// jsonb's text is the canonical one (an object's spacing aside, the
	// same values group together).
	contactFieldValuesPG = `SELECT (je.value::jsonb)::text, COUNT(*)
		FROM contacts c, json_each(c.data::json) je
		WHERE c.project_id = ? AND je.key = ?
		GROUP BY (je.value::jsonb)::text ORDER BY COUNT(*) DESC, (je.value::jsonb)::text LIMIT ?`
)

// ContactFieldValues returns the most frequent distinct values of a key.
func ContactFieldValues(ctx context.Context, q Querier, projectID, key string, limit int) (_ []ValueCount, err error) {
	defer wrap(&err, "ContactFieldValues")
	// json_each gives true and false as the SQL integers 1 and 0, and
	// objects as text, so the JSON text of each value is rebuilt from its
	// type, and values are grouped by type too: true is not 1, nor
	// {"a":1} the string that reads the same.
	rows, err := q.Query(ctx, contactFieldValuesSQL, projectID, key, limit)
	return collect(rows, err, func(s scanner) (ValueCount, error) {
		var v ValueCount
		var raw string
		err := s.Scan(&raw, &v.Count)
		v.Value = json.RawMessage(raw)
		return v, err
	})
}

const (
	deleteContactFieldSQL = `UPDATE contacts
		SET data = json_patch(data, json_object(?2, NULL)),
		    updated_at = ?3
		WHERE project_id = ?1 AND EXISTS (SELECT 1 FROM json_each(contacts.data) je WHERE je.key = ?2)`
	// jsonb's - removes the key; the data is written back as jsonb's
	// text (keys sorted, one space after each colon and comma), which
	// every reader parses the same.
	deleteContactFieldPG = `UPDATE contacts
		SET data = (data::jsonb - ?2::text)::text,
		    updated_at = ?3
		WHERE project_id = ?1 AND EXISTS (SELECT 1 FROM json_object_keys(contacts.data::json) k WHERE k = ?2)`
)

// DeleteContactField removes a data key from every contact of a project.
// It applies the merge patch {key: null} (RFC 7396), which deletes exactly
// that key whatever characters it holds (a JSON path would have to quote
// them) and leaves every other value as it was: rebuilding the object from
// json_each would turn true and false into 1 and 0.
func (tx *Tx) DeleteContactField(ctx context.Context, projectID, key string, now time.Time) (_ int64, err error) {
	defer wrap(&err, "Tx.DeleteContactField")
	return affected(tx.Exec(ctx, deleteContactFieldSQL, projectID, key, Millis(now)))
}
