package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// seedEventsOfTwoContacts makes project p with contacts a and b, each with
// events of two names, and one event with no contact.
func seedEventsOfTwoContacts(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	err := db.Write(ctx, func(tx *Tx) error {
		if err := insertProject("p")(tx); err != nil {
			return err
		}
		for _, c := range []string{"a", "b"} {
			if _, err := tx.Exec(ctx, `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
				VALUES (?, 'p', ? || '@x.test', TRUE, '{}', 0, 0)`, c, c); err != nil {
				return err
			}
		}
		events := []Event{
			{ID: "e1", ContactID: "a", Name: "viewed"}, {ID: "e2", ContactID: "a", Name: "viewed"},
			{ID: "e3", ContactID: "a", Name: "bought"}, {ID: "e4", ContactID: "b", Name: "viewed"},
			{ID: "e5", ContactID: "b", Name: "bought"}, {ID: "e6", Name: "viewed"},
		}
		for _, e := range events {
			e.ProjectID, e.Data, e.CreatedAt = "p", []byte(`{}`), time.Unix(1, 0)
			if err := tx.InsertEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func eventIDs(t *testing.T, db *DB) string {
	t.Helper()
	var ids string
	query := `SELECT COALESCE(group_concat(id, ' '), '') FROM (SELECT id FROM events ORDER BY id)`
	if db.pg != nil {
		query = `SELECT COALESCE(string_agg(id, ' ' ORDER BY id), '') FROM events`
	}
	err := db.Reader().QueryRow(context.Background(), query).Scan(&ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// Since 00022 the events of a deleted contact go by a trigger, not by the
// foreign key's cascade: all of its events, of every name, and no other.
func TestDeletingAContactDeletesItsEvents(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	seedEventsOfTwoContacts(t, db)
	if err := db.Write(ctx, func(tx *Tx) error { _, err := tx.DeleteContact(ctx, "p", "a"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := eventIDs(t, db); got != "e4 e5 e6" {
		t.Fatalf("events after deleting a: %q, want e4 e5 e6", got)
	}
	checkStoredCounts(t, db)
	if err := db.Write(ctx, func(tx *Tx) error { _, err := tx.Exec(ctx, `DELETE FROM projects WHERE id = 'p'`); return err }); err != nil {
		t.Fatal(err)
	}
	if got := eventIDs(t, db); got != "" {
		t.Fatalf("events after deleting the project: %q", got)
	}
	checkStoredCounts(t, db)
}

// An event names an existing contact or none, on every path that inserts
// one, as the foreign key made sure before 00022.
func TestAnEventNeedsItsContact(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	seedEventsOfTwoContacts(t, db)
	ghost := Event{ID: "g1", ProjectID: "p", ContactID: "gone", Name: "viewed", Data: []byte(`{}`), CreatedAt: time.Unix(2, 0)}
	for name, insert := range map[string]func(tx *Tx) error{
		"InsertEvent":  func(tx *Tx) error { return tx.InsertEvent(ctx, ghost) },
		"InsertEvents": func(tx *Tx) error { return tx.InsertEvents(ctx, []Event{ghost}) },
		"UPDATE": func(tx *Tx) error {
			_, err := tx.Exec(ctx, `UPDATE events SET contact_id = 'gone' WHERE id = 'e6'`)
			return err
		},
	} {
		err := db.Write(ctx, insert)
		if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
			t.Errorf("%s of an event of a contact that does not exist: %v", name, err)
		}
	}
	// The workflow's paths store the event with no contact, the
	// engagement's stores nothing and says so.
	workflowBatch := ghost
	workflowBatch.ID = "g2"
	orphans := map[string]func(tx *Tx) error{
		"InsertEventIfContact": func(tx *Tx) error { return tx.InsertEventIfContact(ctx, ghost) },
		"WorkflowWrites": func(tx *Tx) error {
			w := NewWorkflowWrites()
			_ = w.InsertEventIfContact(ctx, workflowBatch)
			return w.Flush(ctx, tx)
		},
		"InsertContactEvent": func(tx *Tx) error {
			// The refused event leaves the transaction going: the event
			// after it in the same write is stored.
			e := ghost
			e.ID = "g3"
			if ok, err := tx.InsertContactEvent(ctx, e); ok || err != nil {
				return fmt.Errorf("event %s stored: %v (%v)", e.ID, ok, err)
			}
			e.ID, e.ContactID = "g4", "a"
			if ok, err := tx.InsertContactEvent(ctx, e); !ok || err != nil {
				return fmt.Errorf("event %s not stored: %v (%v)", e.ID, ok, err)
			}
			return nil
		},
	}
	for name, insert := range orphans {
		if err := db.Write(ctx, insert); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, id := range []string{"g1", "g2"} {
		var contact any
		if err := db.Reader().QueryRow(ctx, `SELECT contact_id FROM events WHERE id = ?`, id).Scan(&contact); err != nil || contact != nil {
			t.Fatalf("event %s of a gone contact stored contact %v (%v)", id, contact, err)
		}
	}
	if got := eventIDs(t, db); got != "e1 e2 e3 e4 e5 e6 g1 g2 g4" {
		t.Fatalf("events: %q", got)
	}
	checkStoredCounts(t, db)
}

// The statements of 00022's triggers on events read
// events_by_name_contact by (project, name, contact), none scans the
// table, and events_by_contact is gone. (The first is the trigger's
// DELETE word for word, with literals for OLD.)
func TestEventStatementsUseTheIndexThatStays(t *testing.T) {
	sqliteOnly(t, "the indexes SQLite reads for events")
	db := openTest(t)
	ctx := context.Background()
	statements := map[string]string{
		"a contact's events, deleted with it": `DELETE FROM events WHERE project_id = 'p'
			AND id IN (SELECT id FROM events INDEXED BY events_by_name_contact WHERE project_id = 'p'
				AND name IN (SELECT key FROM audience_counts WHERE project_id = 'p' AND kind = 3) AND contact_id = 'c')`,
		"another event of the name": `SELECT 1 FROM events INDEXED BY events_by_name_contact
			WHERE project_id = 'p' AND name = 'n' AND contact_id = 'c' AND id <> 'e'`,
		"the project's events, deleted with it": `DELETE FROM events WHERE project_id = 'p'`,
	}
	for what, q := range statements {
		plan := explain(t, db, q)
		t.Logf("%s: %s", what, plan)
		if strings.Contains(plan, "SCAN events") || !strings.Contains(plan, "SEARCH events") {
			t.Errorf("%s: %s", what, plan)
		}
	}
	if plan := explain(t, db, statements["a contact's events, deleted with it"]); !strings.Contains(plan,
		"events_by_name_contact (project_id=? AND name=? AND contact_id=?)") {
		t.Errorf("a contact's events are not sought by name and contact: %s", plan)
	}
	var n int
	if err := db.Reader().QueryRow(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_by_contact'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("events_by_contact: %d (%v)", n, err)
	}
}

func explain(t *testing.T, db *DB, q string) string {
	t.Helper()
	rows, err := db.Reader().Query(context.Background(), "EXPLAIN QUERY PLAN "+q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "; ")
}

// Migration 22 goes down to the foreign key and both indexes, keeping the
// events, and up again.
func TestMigrationEventsOneIndexDown(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	if _, err := p.UpTo(ctx, 22); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at)
		VALUES ('p', 'p', 'pk_p', 'sk_p', 0, 0);
		INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
		VALUES ('c', 'p', 'c@x.test', 1, '{}', 0, 0);
		INSERT INTO events (id, project_id, contact_id, name, data, created_at) VALUES ('e', 'p', 'c', 'viewed', '{}', 0)`); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var n int
		if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := p.DownTo(ctx, 21); err != nil {
		t.Fatal(err)
	}
	if count(`SELECT COUNT(*) FROM pragma_foreign_key_list('events') WHERE "table" = 'contacts'`) != 1 ||
		count(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_by_contact'`) != 1 ||
		count(`SELECT COUNT(*) FROM events`) != 1 {
		t.Fatal("down: the foreign key, events_by_contact or the event is missing")
	}
	if _, err := p.UpTo(ctx, 22); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM contacts WHERE id = 'c'`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT COUNT(*) FROM events`); n != 0 {
		t.Fatalf("up again: %d events after deleting their contact", n)
	}
	if n := count(`SELECT COUNT(*) FROM audience_counts WHERE kind = 3`); n != 0 {
		t.Fatalf("up again: %d event-name counts after deleting the contact", n)
	}
}

// Every path that inserts events counts a contact's first event of a name
// (00022's trigger), once however many events of the name a batch holds,
// and never an event with no contact or a contact gone.
func TestEveryEventInsertKeepsTheCounts(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	seedEventsOfTwoContacts(t, db)
	var next int
	event := func(contact, name string) Event {
		next++
		return Event{ID: fmt.Sprintf("n%03d", next), ProjectID: "p", ContactID: contact, Name: name, Data: []byte(`{}`),
			CreatedAt: time.Unix(3, 0)}
	}
	paths := map[string]func(tx *Tx, name string) error{
		"InsertEvent": func(tx *Tx, name string) error {
			return errors.Join(tx.InsertEvent(ctx, event("a", name)), tx.InsertEvent(ctx, event("a", name)),
				tx.InsertEvent(ctx, event("", name)))
		},
		"InsertEventIfContact": func(tx *Tx, name string) error {
			return errors.Join(tx.InsertEventIfContact(ctx, event("a", name)),
				tx.InsertEventIfContact(ctx, event("b", name)), tx.InsertEventIfContact(ctx, event("b", name)))
		},
		"InsertContactEvent": func(tx *Tx, name string) error {
			_, err := tx.InsertContactEvent(ctx, event("b", name))
			return err
		},
		"InsertEvents": func(tx *Tx, name string) error {
			return tx.InsertEvents(ctx, []Event{event("a", name), event("a", name), event("b", name), event("", name),
				event("a", "viewed")})
		},
		"WorkflowWrites": func(tx *Tx, name string) error {
			w := NewWorkflowWrites()
			for _, e := range []Event{event("a", name), event("a", name), event("gone", name), event("b", "viewed")} {
				_ = w.InsertEventIfContact(ctx, e)
			}
			return w.Flush(ctx, tx)
		},
	}
	for path, insert := range paths {
		for range 2 { // the second time finds the first's events of the name
			if err := db.Write(ctx, func(tx *Tx) error { return insert(tx, path) }); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			checkStoredCounts(t, db)
		}
	}
}
