package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldmail/herald/storage/pgtest"
)

// The PostgreSQL baseline computes in PL/pgSQL and SQL functions what
// SQLite computes with its own: the instant of a date text, the rows of a
// contact's data, the stored counts. These tests give both engines the
// same input and compare what they store.

// openBothEngines returns a migrated SQLite database and a migrated
// PostgreSQL one, as plain database/sql handles.
func openBothEngines(t *testing.T) (lite, pg *sql.DB) {
	t.Helper()
	if pgtest.URL() == "" {
		t.Skipf("%s is not set: nothing to compare SQLite with", pgtest.EnvURL)
	}
	lite, err := OpenWithoutMigrating(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	if _, err := Migrate(t.Context(), lite); err != nil {
		t.Fatal(err)
	}
	pg, err = sql.Open("pgx", pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return lite, pg
}

// TestDateInstantMatchesSQLite compares herald_date_ms with the
// expression of SQLite's contact_values_dates index.
func TestDateInstantMatchesSQLite(t *testing.T) {
	lite, pg := openBothEngines(t)
	ctx := t.Context()
	for _, text := range []string{
		"2024-02-30T10:00:00.5Z", "2024-01-01", "2024-01-01 10:00", "2024-01-01T10:00:00+02:00",
		"1969-12-31T23:59:59.9995", "2024-13-01", "2024-01-01x", "0000-01-01", "9999-12-31 23:59:59.999",
		"9999-12-31 24:00:00", "2024-01-01 10:00:00 -05:30", "2024-01-01T", "2024-01-01Z", "2024-01-01 T 10:00",
		"2024-02-31", "2023-02-29", "2024-01-01 10:00:60", "2024-01-01 25:00", "2024-01-01 24:30",
		"2024-01-01T10:00:00.123456789", "2024-01-01   ", "2024-01-01+01:00", "2024-01-01 10:00 Z ",
		"2024-01-01T00:00:00.1235", "2024-01-01T00:00:00.9999", "2024-01-01T00:00:00.0005",
		"2024-01-01T00:00:00.0004999", "1970-01-01T00:00:00.0015", "2024-06-15T12:34:56.789-14:00",
		"2024-06-15T12:34:56.789+15:00", "2024-06-15\t12:34", "2024-06-15 12:34:56.", "2024-06-15T12:34:56Zjunk",
		"2024-00-10", "2024-01-00", "2024-01-32", "2024-01-01t10:00", "2024-01-01T10:00:00.5z", "2024-01-01T1:00",
	} {
		var want, got sql.NullInt64
		if err := lite.QueryRowContext(ctx, "SELECT "+dateInstantOf("?"), text).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := pg.QueryRowContext(ctx, "SELECT herald_date_ms($1)", text).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q: PostgreSQL %v, SQLite %v", text, got, want)
		}
	}
}

// dateInstantOf is the date test's instant (dateInstant) of an operand.
func dateInstantOf(operand string) string {
	return "CAST(round(unixepoch(" + operand + ", 'subsec') * 1000) AS INTEGER)"
}

// A valueRow is a contact_values row in terms both engines share: the
// value's class (0 text, 1 number, 2 the marker) and its text, or its
// number.
type valueRow struct {
	contact, key string
	class        int
	text         string
	number       float64
	n            int64 // a stored count's
}

// TestContactValuesMatchSQLite writes the same contacts on both engines,
// changes and deletes some, and compares the rows of contact_values and
// the stored counts after each step.
func TestContactValuesMatchSQLite(t *testing.T) {
	lite, pg := openBothEngines(t)
	ctx := t.Context()
	datas := []string{
		`{}`,
		`{"plan":"Pro","tags":["a","b",1,true,null,{"x":1},[2]],"n":"42","d":"2024-02-30T10:00:00.5Z","o":{},"z":null,"f":1.50}`,
		`{"plan":"pro","tags":["A","a"],"n":42,"big":12345678901234567,"neg":-0.0,"e":1e3,"s":" 7 ","t":"1e400"}`,
		`{"plan":"PRO","flag":false,"x":"true","u":"\u00e9t\u00c9","n":"042"}`,
		`{"plan":"free","tags":[]}`,
	}
	steps := []struct {
		name       string
		lite, pg   string
		args       func(i int) []any
		onContacts []int
	}{
		{"insert", `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at) VALUES (?, 'p', ?, ?, ?, 0, 0)`,
			`INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at) VALUES ($1, 'p', $2, $3, $4, 0, 0)`,
			func(i int) []any { return []any{fmt.Sprintf("c%d", i), fmt.Sprintf("c%d@x", i), i%2 == 0, datas[i]} },
			[]int{0, 1, 2, 3, 4}},
		{"update", `UPDATE contacts SET data = ?, subscribed = ? WHERE id = ?`, `UPDATE contacts SET data = $1, subscribed = $2 WHERE id = $3`,
			func(i int) []any { return []any{datas[(i+2)%len(datas)], i%2 == 1, fmt.Sprintf("c%d", i)} },
			[]int{1, 2, 3}},
		{"delete", `DELETE FROM contacts WHERE id = ?`, `DELETE FROM contacts WHERE id = $1`,
			func(i int) []any { return []any{fmt.Sprintf("c%d", i)} },
			[]int{2}},
	}
	for _, db := range []struct {
		db *sql.DB
		q  string
	}{{lite, `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at) VALUES ('p', 'p', 'pk', 'sk', 0, 0)`},
		{pg, `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at) VALUES ('p', 'p', 'pk', 'sk', 0, 0)`}} {
		if _, err := db.db.ExecContext(ctx, db.q); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range steps {
		for _, i := range step.onContacts {
			if _, err := lite.ExecContext(ctx, step.lite, step.args(i)...); err != nil {
				t.Fatalf("%s on SQLite: %v", step.name, err)
			}
			if _, err := pg.ExecContext(ctx, step.pg, step.args(i)...); err != nil {
				t.Fatalf("%s on PostgreSQL: %v", step.name, err)
			}
		}
		want, err := readRows(ctx, lite, `SELECT contact_id, key, CASE typeof(value) WHEN 'text' THEN 0 WHEN 'blob' THEN 2 ELSE 1 END,
			CASE typeof(value) WHEN 'text' THEN value ELSE '' END, CASE WHEN typeof(value) IN ('integer', 'real') THEN value ELSE 0 END
			FROM contact_values`, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readRows(ctx, pg, `SELECT contact_id, key, vtype, CASE vtype WHEN 0 THEN value ELSE '' END, coalesce(num, 0)
			FROM contact_values`, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("after %s, contact_values:\nPostgreSQL %v\nSQLite     %v", step.name, got, want)
		}
		wantCounts, err := readRows(ctx, lite, `SELECT kind, key, CASE typeof(value) WHEN 'text' THEN 0 WHEN 'blob' THEN 2 ELSE 1 END,
			CASE typeof(value) WHEN 'text' THEN lower(value) ELSE '' END, CASE WHEN typeof(value) IN ('integer', 'real') THEN value ELSE 0 END, n
			FROM audience_counts WHERE n > 0`, true)
		if err != nil {
			t.Fatal(err)
		}
		gotCounts, err := readRows(ctx, pg, `SELECT kind, key, vtype, CASE vtype WHEN 0 THEN fold ELSE '' END,
			CASE vtype WHEN 1 THEN herald_number(fold) ELSE 0 END, sum(n)
			FROM audience_counts GROUP BY kind, key, vtype, fold HAVING sum(n) <> 0`, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gotCounts, wantCounts) {
			t.Errorf("after %s, audience_counts:\nPostgreSQL %v\nSQLite     %v", step.name, gotCounts, wantCounts)
		}
	}
}

// readRows reads rows of (contact or kind, key, class, text, number) and,
// with counted, n, sorted.
func readRows(ctx context.Context, db *sql.DB, query string, counted bool) ([]valueRow, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []valueRow
	for rows.Next() {
		var r valueRow
		dest := []any{&r.contact, &r.key, &r.class, &r.text, &r.number}
		if counted {
			dest = append(dest, &r.n)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b valueRow) int { return strings.Compare(a.sortKey(), b.sortKey()) })
	return out, rows.Err()
}

func (r valueRow) sortKey() string {
	return strings.Join([]string{r.contact, r.key, strconv.Itoa(r.class), r.text, strconv.FormatFloat(r.number, 'g', -1, 64)}, "\x00")
}
