package storage

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The condition compiler's PostgreSQL dialect, where it differs from
// SQLite's (audience_sql.go). contact_values has no untyped, NOCASE value
// there: a row has a type (vtype: 0 text, 1 number, 2 the marker of an
// object, array or null), a fold (the equality key) and, computed from its
// text, num for a number and ts for a date (migrations/postgres).

// dataTestPostgres writes dataTest for PostgreSQL. The planner picks its
// indexes itself: no INDEXED BY.
func (b *setBuilder) dataTestPostgres(t *Test) {
	from := "DISTINCT contact_id AS cid FROM contact_values"
	if t.Op == OpEquals {
		from = "contact_id AS cid FROM contact_values"
	}
	b.write("SELECT ", from, " WHERE project_id = ", b.arg(b.projectID), " AND key = ", b.arg(t.Key))
	switch ms, isDate := dateMillis(t.Value); {
	case t.Op == OpExists:
	case t.Op == OpEquals:
		vtype, text := postgresValue(dataScalar(t.Value))
		b.write(" AND vtype = ", b.arg(vtype), " AND fold = herald_value_fold(", b.arg(vtype), "::smallint, ", b.arg(text), ")")
	case t.Op == OpContains:
		b.write(" AND vtype = 0 AND strpos(lower(value), lower(", b.arg(fmt.Sprint(t.Value)), "::text)) > 0")
	case isDate:
		b.write(" AND ts ", comparison(t.Op), " ", b.arg(ms))
	default:
		vtype, text := postgresValue(t.Value)
		switch {
		case vtype == 1:
			b.write(" AND num ", comparison(t.Op), " ", b.arg(text), "::float8")
		case t.Op == OpLess || t.Op == OpLessEq:
			// SQLite sorts every number before every text: less than a
			// text is every number and the texts before it.
			b.write(" AND (vtype = 1 OR vtype = 0 AND fold ", comparison(t.Op), " herald_fold(", b.arg(text), "::text))")
		default:
			// Greater than a text, and below every text (SQLite's range
			// keeps to numbers with "< ''"): nothing.
			b.write(" AND FALSE")
		}
	}
	b.bound("contact_id")
}

// postgresValue is a condition's value as contact_values types it on
// PostgreSQL: its vtype and its text, whose fold herald_value_fold
// computes in the statement (the same function as the column's).
func postgresValue(v any) (vtype int, text string) {
	switch v := v.(type) {
	case string:
		return 0, v
	case float64:
		return 1, strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return 1, strconv.FormatFloat(float64(v), 'g', -1, 32)
	case int:
		return 1, strconv.Itoa(v)
	case int64:
		return 1, strconv.FormatInt(v, 10)
	case json.Number:
		return 1, v.String()
	case nil:
		return 2, ""
	}
	return 0, fmt.Sprint(v)
}
