package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// recountSQL derives audience_counts from the rows it counts, as migration
// 00018 fills it.
const recountSQL = `
SELECT project_id, 0 AS kind, '' AS key, '' AS value, COUNT(*) AS n FROM contacts GROUP BY project_id
UNION ALL
SELECT project_id, 1, key, value, COUNT(*) FROM contact_values GROUP BY project_id, key, value
UNION ALL
SELECT project_id, 2, key, '', COUNT(*) FROM (SELECT DISTINCT project_id, key, contact_id FROM contact_values) GROUP BY project_id, key
UNION ALL
SELECT project_id, 3, name, '', COUNT(*) FROM (SELECT DISTINCT project_id, name, contact_id FROM events WHERE contact_id IS NOT NULL)
GROUP BY project_id, name
UNION ALL
SELECT project_id, 4, '', '', COUNT(*) FROM contacts WHERE subscribed = 0 GROUP BY project_id`

// recountPG is recountSQL on PostgreSQL, whose values are a type and a
// fold (migrations/postgres).
const recountPG = `
SELECT project_id, 0 AS kind, '' AS key, 0 AS vtype, '' AS fold, COUNT(*) AS n FROM contacts GROUP BY project_id
UNION ALL
SELECT project_id, 1, key, vtype, fold, COUNT(*) FROM contact_values GROUP BY project_id, key, vtype, fold
UNION ALL
SELECT project_id, 2, key, 0, '', COUNT(*) FROM (SELECT DISTINCT project_id, key, contact_id FROM contact_values) d
GROUP BY project_id, key
UNION ALL
SELECT project_id, 3, name, 0, '', COUNT(*) FROM (SELECT DISTINCT project_id, name, contact_id FROM events
	WHERE contact_id IS NOT NULL) d
GROUP BY project_id, name
UNION ALL
SELECT project_id, 4, '', 0, '', COUNT(*) FROM contacts WHERE NOT subscribed GROUP BY project_id`

// storedPG is audience_counts on PostgreSQL as counts: the sums of the
// shards, without the rows whose sum fell to 0 (kept there).
const storedPG = `SELECT project_id, kind, key, vtype, fold, sum(n) AS n FROM audience_counts
GROUP BY project_id, kind, key, vtype, fold HAVING sum(n) <> 0`

// checkStoredCounts fails unless audience_counts holds exactly the counts
// derived from contacts, contact_values and events, with no empty rows.
func checkStoredCounts(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	var stored, derived, missing, empty int
	if db.pg != nil {
		err := db.Reader().QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM (`+storedPG+`) s), (SELECT COUNT(*) FROM (`+recountPG+`) r),
			(SELECT COUNT(*) FROM (`+recountPG+`) r WHERE NOT EXISTS (SELECT 1 FROM (`+storedPG+`) c
				WHERE c.project_id = r.project_id AND c.kind = r.kind AND c.key = r.key AND c.vtype = r.vtype
				  AND c.fold = r.fold AND c.n = r.n)),
			(SELECT COUNT(*) FROM (`+storedPG+`) s WHERE n < 0)`).Scan(&stored, &derived, &missing, &empty)
		if err != nil {
			t.Fatal(err)
		}
		if stored != derived || missing != 0 || empty != 0 {
			t.Fatalf("audience_counts: %d counts, %d derived, %d missing or wrong, %d below 0", stored, derived, missing, empty)
		}
		return
	}
	err := db.Reader().QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM audience_counts), (SELECT COUNT(*) FROM (`+recountSQL+`)),
		(SELECT COUNT(*) FROM (`+recountSQL+`) r WHERE NOT EXISTS (SELECT 1 FROM audience_counts c
			WHERE c.project_id = r.project_id AND c.kind = r.kind AND c.key = r.key AND c.value = r.value AND c.n = r.n)),
		(SELECT COUNT(*) FROM audience_counts WHERE n <= 0)`).Scan(&stored, &derived, &missing, &empty)
	if err != nil {
		t.Fatal(err)
	}
	if stored != derived || missing != 0 || empty != 0 {
		t.Fatalf("audience_counts: %d rows, %d derived, %d missing or wrong, %d empty", stored, derived, missing, empty)
	}
}

// countWrites makes random writes of every kind that moves a count:
// contacts created with random data (case variants, numbers and numeric
// texts, arrays, nulls, objects), data rewritten or a field removed from
// every contact, contacts deleted, events recorded one by one or in a
// batch, with and without a contact, events of a name deleted, a project
// reset or deleted.
type countWrites struct {
	rng      *rand.Rand
	projects []string
	next     int
	now      time.Time
}

func (w *countWrites) data() string {
	values := []any{"pro", "Pro", "PRO", "free", "12", 12, 12.0, 12.5, true, false, nil,
		map[string]any{"x": 1}, []any{"a", "A", 12, "12", true}, []any{}, "2025-05-03T10:00:00Z", ""}
	m := map[string]any{}
	for _, k := range []string{"plan", "age", "tags", "n"} {
		if w.rng.IntN(3) > 0 {
			m[k] = values[w.rng.IntN(len(values))]
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func (w *countWrites) contact(ctx context.Context, tx *Tx) (string, string, error) {
	p := w.projects[w.rng.IntN(len(w.projects))]
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM contacts WHERE project_id = ? ORDER BY random() LIMIT 1`, p).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return p, id, err
}

func (w *countWrites) one(ctx context.Context, tx *Tx) error {
	w.next++
	p, c, err := w.contact(ctx, tx)
	if err != nil {
		return err
	}
	event := func(id string) Event {
		contact := c
		if w.rng.IntN(5) == 0 {
			contact = ""
		}
		return Event{ID: id, ProjectID: p, ContactID: contact, Name: []string{"purchase", "open", "Purchase"}[w.rng.IntN(3)],
			Data: json.RawMessage("{}"), CreatedAt: w.now.Add(-time.Duration(w.rng.IntN(96)) * time.Hour)}
	}
	switch op := w.rng.IntN(20); {
	case op < 6 || c == "":
		id := fmt.Sprintf("c%06d", w.next)
		return tx.InsertContact(ctx, Contact{ID: id, ProjectID: p, Email: id + "@example.com", Subscribed: w.rng.IntN(4) > 0,
			Data: json.RawMessage(w.data()), CreatedAt: w.now, UpdatedAt: w.now})
	case op < 10:
		return tx.UpdateContact(ctx, Contact{ID: c, ProjectID: p, Email: c + "@example.com", Subscribed: true,
			Data: json.RawMessage(w.data()), UpdatedAt: w.now})
	case op < 12:
		_, err := tx.DeleteContact(ctx, p, c)
		return err
	case op < 16:
		return tx.InsertEvent(ctx, event(fmt.Sprintf("e%06d", w.next)))
	case op < 18:
		return tx.InsertEvents(ctx, []Event{event(fmt.Sprintf("e%06da", w.next)), event(fmt.Sprintf("e%06db", w.next))})
	case op == 18 && w.rng.IntN(4) == 0:
		_, err := tx.DeleteEventsNamed(ctx, p, "purchase")
		return err
	case op == 18:
		_, err := tx.DeleteContactField(ctx, p, []string{"plan", "tags"}[w.rng.IntN(2)], w.now)
		return err
	case w.rng.IntN(10) == 0:
		return tx.ResetProject(ctx, p, map[string]bool{"projects": true})
	default:
		return nil
	}
}

// TestAudienceCountsFollowWrites checks that the stored counts equal the
// counts derived from the rows after random writes from several writers
// at once, and that a count read from them equals the count of the ids
// the same audience selects, in one snapshot, while the writes go on.
func TestAudienceCountsFollowWrites(t *testing.T) {
	db := openAudienceDB(t)
	ctx := context.Background()
	checkStoredCounts(t, db) // the migration's fill, over openAudienceDB's rows
	now := time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC)
	if err := db.Write(ctx, func(tx *Tx) error {
		return tx.InsertProject(ctx, Project{ID: "q", Name: "q", Public: "pk2", Secret: "sk2", CreatedAt: now, UpdatedAt: now})
	}); err != nil {
		t.Fatal(err)
	}
	writers, rounds := 4, 150
	if testing.Short() {
		rounds = 40
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &countWrites{rng: rand.New(rand.NewPCG(uint64(i), 3)), projects: []string{"p", "q"}, next: i * 1_000_000, now: now}
			for range rounds {
				if err := db.Write(ctx, func(tx *Tx) error {
					for range 1 + w.rng.IntN(4) {
						if err := w.one(ctx, tx); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// While the writers run, each stored count must equal the count of the
	// set it stands for, both read in one statement (one snapshot).
	tests := []Test{
		{Source: SourceData, Key: "plan", Op: OpEquals, Value: "pro"},
		{Source: SourceData, Key: "plan", Op: OpEquals, Value: int64(12)},
		{Source: SourceData, Key: "plan", Op: OpEquals, Value: 12.5},
		{Source: SourceData, Key: "tags", Op: OpEquals, Value: "12"},
		{Source: SourceData, Key: "tags", Op: OpEquals, Value: true},
		{Source: SourceData, Key: "age", Op: OpEquals, Value: ""},
		{Source: SourceData, Key: "tags", Op: OpExists},
		{Source: SourceData, Key: "n", Op: OpExists, Not: true},
		{Source: SourceEvent, Key: "purchase", Op: OpExists},
		{Source: SourceEvent, Key: "Purchase", Op: OpExists, Not: true},
	}
	compare := func() {
		for _, p := range []string{"p", "q"} {
			auds := []Audience{{ProjectID: p}}
			for _, tt := range tests {
				auds = append(auds, Audience{ProjectID: p, Match: one(tt)})
			}
			for _, a := range auds {
				pg := db.pg != nil
				stored, sargs, ok := a.storedCountSQL(pg)
				if !ok {
					t.Errorf("no stored count for %+v", a.Match)
					return
				}
				set, args := a.setSQL("", "", true, pg)
				var got, want int
				if err := queryRowAdhoc(ctx, db.Reader(), `SELECT (`+stored+`), (SELECT COUNT(*) FROM (`+set+`) AS s)`,
					append(sargs, args...)...).Scan(&got, &want); err != nil {
					t.Error(err)
					return
				}
				if got != want {
					t.Errorf("project %s, %+v: stored count %d, the set holds %d", p, a.Match, got, want)
				}
			}
		}
	}
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	for {
		select {
		case <-stop:
		default:
			compare()
			if !t.Failed() {
				continue
			}
			<-stop
		}
		break
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkStoredCounts(t, db)
	compare()
	// Marketing audiences (subscribed only) of the same, and of every
	// contact, count as their sets do.
	for _, p := range []string{"p", "q"} {
		auds := []Audience{{ProjectID: p, SubscribedOnly: true}}
		for _, tt := range tests {
			auds = append(auds, Audience{ProjectID: p, Match: one(tt), SubscribedOnly: true})
		}
		for _, a := range auds {
			got, err := CountAudience(ctx, db.Reader(), a)
			set, args := a.setSQL("", "", true, db.pg != nil)
			var want int
			if err == nil {
				err = queryRowAdhoc(ctx, db.Reader(), `SELECT COUNT(*) FROM (`+set+`) AS s`, args...).Scan(&want)
			}
			if err != nil || got != want {
				t.Fatalf("project %s, subscribed, %+v: count %d (%v), the set holds %d", p, a.Match, got, err, want)
			}
		}
	}
	// A deleted project leaves no counts behind.
	if err := db.Write(ctx, func(tx *Tx) error { return tx.DeleteProject(ctx, "q") }); err != nil {
		t.Fatal(err)
	}
	checkStoredCounts(t, db)
	var left int
	if err := db.Reader().QueryRow(ctx, `SELECT COUNT(*) FROM audience_counts WHERE project_id = 'q'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("deleted project keeps %d counts (%v)", left, err)
	}
}
