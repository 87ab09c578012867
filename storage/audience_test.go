package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// openAudienceDB opens a migrated database with a project, contacts with
// data, and events.
func openAudienceDB(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, testLocation(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	err = db.Write(ctx, func(tx *Tx) error {
		if err := tx.InsertProject(ctx, Project{ID: "p", Name: "p", Public: "pk", Secret: "sk", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for i := range 200 {
			id := fmt.Sprintf("c%04d", i)
			data := fmt.Sprintf(`{"plan":%q,"age":%d,"tags":["a","b"]}`, []string{"pro", "free"}[i%2], i%90)
			if err := tx.InsertContact(ctx, Contact{ID: id, ProjectID: "p", Email: id + "@example.com", Subscribed: true,
				Data: json.RawMessage(data), CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
			if err := tx.InsertEvent(ctx, Event{ID: "e" + id, ProjectID: "p", ContactID: id, Name: "purchase",
				Data: json.RawMessage("{}"), CreatedAt: now}); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "ANALYZE")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func one(tests ...Test) *Match { return &Match{Groups: []MatchGroup{{Tests: tests}}} }

// TestAudienceCountPlans checks that counts read indexes as sorted sets of
// ids: no scan of events or contacts, no subquery run once per contact.
func TestAudienceCountPlans(t *testing.T) {
	sqliteOnly(t, "the query plans SQLite picks for counts")
	db := openAudienceDB(t)
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	purchase := Test{Source: SourceEvent, Key: "purchase", Op: OpExists}
	recent := Test{Source: SourceEvent, Key: "purchase", Op: OpSince, Value: since}
	pro := Test{Source: SourceData, Key: "plan", Op: OpEquals, Value: "pro"}
	cases := []struct {
		name  string
		match *Match
		want  []string
	}{
		// one counted test, or its negation, reads its stored count (00018)
		{"event filter", one(purchase), []string{"SEARCH audience_counts USING PRIMARY KEY (project_id=? AND kind=? AND key=? AND value=?)"}},
		{"event window", one(recent), []string{"USING COVERING INDEX events_by_name_contact (project_id=? AND name=?"}},
		{"data filter", one(pro), []string{"SEARCH audience_counts USING PRIMARY KEY (project_id=? AND kind=? AND key=? AND value=?)"}},
		{"data and event", one(pro, purchase), []string{"MERGE (INTERSECT)", "events_by_name_contact", "contact_values USING PRIMARY KEY"}},
		{"not triggered", one(Test{Not: true, Source: SourceEvent, Key: "purchase", Op: OpExists}),
			[]string{"SEARCH audience_counts USING PRIMARY KEY (project_id=? AND kind=? AND key=? AND value=?)"}},
		{"not triggered nor data", one(Test{Not: true, Source: SourceEvent, Key: "purchase", Op: OpExists}, Test{Not: true,
			Source: SourceData, Key: "plan", Op: OpEquals, Value: "pro"}),
			// the stored count of contacts minus the union of what it subtracts
			[]string{"SEARCH audience_counts USING PRIMARY KEY (project_id=? AND kind=? AND key=? AND value=?)", "MERGE (UNION)", "events_by_name_contact", "contact_values USING PRIMARY KEY"}},
		{"not triggered and data", one(Test{Not: true, Source: SourceEvent, Key: "purchase", Op: OpExists}, pro),
			[]string{"MERGE (EXCEPT)", "contact_values USING PRIMARY KEY", "events_by_name_contact"}},
		{"data range", one(Test{Source: SourceData, Key: "age", Op: OpGreater, Value: int64(40)}),
			[]string{"contact_values USING COVERING INDEX contact_values_by_contact (project_id=? AND key=?)"}},
		{"data within", one(Test{Source: SourceData, Key: "signup", Op: OpGreaterEq, Value: since}),
			[]string{"contact_values USING COVERING INDEX contact_values_dates (project_id=? AND key=?)"}},
		{"subscribed and data", one(Test{Source: SourceContact, Column: ColumnSubscribed, Op: OpEquals, Value: true}, pro),
			[]string{"MERGE (EXCEPT)", "contacts USING COVERING INDEX contacts_unsubscribed (project_id=?)"}},
		{"nested groups", &Match{Groups: []MatchGroup{{Tests: []Test{pro}, Nested: &Match{Any: true, Groups: []MatchGroup{
			{Tests: []Test{purchase}}, {Tests: []Test{{Source: SourceData, Key: "age", Op: OpLess, Value: int64(30)},
				{Source: SourceContact, Column: ColumnSubscribed, Op: OpEquals, Value: true}}}}}}}},
			[]string{"MERGE (INTERSECT)", "MERGE (UNION)", "MERGE (EXCEPT)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := ExplainAudienceCount(context.Background(), db.Reader(), Audience{ProjectID: "p", Match: c.match})
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("plan lacks %q:\n%s", w, text)
				}
			}
			for _, bad := range []string{"SCAN events", "SCAN contacts", "CORRELATED", "events_by_contact", "TEMP B-TREE"} {
				if strings.Contains(text, bad) {
					t.Errorf("plan has %q:\n%s", bad, text)
				}
			}
		})
	}
}

// TestContactValuesFollowData checks the triggers: after inserts, updates
// and deletes, contact_values holds exactly the rows its view derives.
func TestContactValuesFollowData(t *testing.T) {
	db := openAudienceDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC)
	err := db.Write(ctx, func(tx *Tx) error {
		for i := range 200 {
			id := fmt.Sprintf("c%04d", i)
			switch i % 4 {
			case 0:
				if _, err := tx.DeleteContact(ctx, "p", id); err != nil {
					return err
				}
			case 1:
				data := `{"plan":"PRO","tags":["A","a",true,1,1.0,{"x":1}],"n":"12","o":null}`
				if err := tx.UpdateContact(ctx, Contact{ID: id, ProjectID: "p", Email: id + "@example.com",
					Data: json.RawMessage(data), UpdatedAt: now}); err != nil {
					return err
				}
			}
		}
		_, err := tx.DeleteContactField(ctx, "p", "age", now) // rewrites data in one UPDATE
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var extra, missing, rows int
	r := db.Reader()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if db.pg != nil { // rows are equal under their type and fold (migrations/postgres)
		must(r.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT project_id, key, vtype, fold, contact_id FROM contact_values
			EXCEPT SELECT project_id, key, vtype, herald_value_fold(vtype, value), contact_id FROM contact_value_rows) s`).Scan(&extra))
		must(r.QueryRow(ctx, `SELECT COUNT(*) FROM contact_value_rows v WHERE NOT EXISTS (SELECT 1 FROM contact_values c
			WHERE c.project_id = v.project_id AND c.key = v.key AND c.vtype = v.vtype
			  AND c.fold = herald_value_fold(v.vtype, v.value) AND c.contact_id = v.contact_id)`).Scan(&missing))
	} else {
		must(r.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT * FROM contact_values EXCEPT SELECT * FROM contact_value_rows)`).Scan(&extra))
		must(r.QueryRow(ctx, `SELECT COUNT(*) FROM contact_value_rows v WHERE NOT EXISTS (SELECT 1 FROM contact_values c
			WHERE c.project_id = v.project_id AND c.key = v.key AND c.value = v.value AND c.contact_id = v.contact_id)`).Scan(&missing))
	}
	must(r.QueryRow(ctx, `SELECT COUNT(*) FROM contact_values`).Scan(&rows))
	// The view repeats what NOCASE and numeric equality fold into one row
	// ("A" and "a"; 1 and 1.0): a view row is present when the table has a
	// row equal to it under the table's collation.
	if extra != 0 || missing != 0 || rows == 0 {
		t.Fatalf("contact_values: %d stale rows, %d missing, %d in all", extra, missing, rows)
	}
	var left int
	must(r.QueryRow(ctx, `SELECT COUNT(*) FROM contact_values WHERE contact_id IN ('c0000', 'c0004')`).Scan(&left))
	if left != 0 {
		t.Fatalf("deleted contacts keep %d rows", left)
	}
}

// TestAudienceSQLBindsValues checks that nothing a client wrote reaches
// the SQL text: keys, names, texts and ids are all parameters.
func TestAudienceSQLBindsValues(t *testing.T) {
	evil := `x'); DROP TABLE contacts; --`
	m := &Match{Any: true, Groups: []MatchGroup{
		{Tests: []Test{{Source: SourceData, Key: evil, Op: OpEquals, Value: evil}}},
		{Tests: []Test{{Source: SourceEvent, Key: evil, Op: OpExists}, {Source: SourceMembers, Segment: evil, Op: OpExists, Not: true}}},
		{Tests: []Test{{Source: SourceContact, Column: ColumnEmail, Op: OpContains, Value: evil}}},
	}}
	query, args := Audience{ProjectID: evil, Match: m}.IDsSQL()
	if strings.Contains(query, "DROP") || strings.Count(query, "?") != len(args) {
		t.Fatalf("query %s with %d args", query, len(args))
	}
	db := openAudienceDB(t)
	if _, err := CountAudience(context.Background(), db.Reader(), Audience{ProjectID: "p", Match: m}); err != nil {
		t.Fatal(err)
	}
}
