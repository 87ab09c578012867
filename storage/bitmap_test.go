package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// txQuerier runs the SQL plan inside a bitmap read's transaction, so that
// both answers come from one snapshot.
type txQuerier struct{ tx *sql.Tx }

func (q txQuerier) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.tx.ExecContext(ctx, query, args...)
}

func (q txQuerier) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.tx.QueryContext(ctx, query, args...)
}

func (q txQuerier) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return q.tx.QueryRowContext(ctx, query, args...)
}

// bitmapTests are tests of every kind the bitmaps cover, over the values
// countWrites writes.
func bitmapTests(now time.Time) []Test {
	day := 24 * time.Hour
	return []Test{
		{Source: SourceData, Key: "plan", Op: OpEquals, Value: "pro"},
		{Source: SourceData, Key: "plan", Op: OpEquals, Value: int64(12)},
		{Source: SourceData, Key: "tags", Op: OpEquals, Value: "a"},
		{Source: SourceData, Key: "tags", Op: OpEquals, Value: true},
		{Source: SourceData, Key: "age", Op: OpExists},
		{Source: SourceData, Key: "n", Op: OpGreater, Value: int64(12)},
		{Source: SourceData, Key: "n", Op: OpGreaterEq, Value: int64(12)},
		{Source: SourceData, Key: "tags", Op: OpLessEq, Value: 12.5},
		{Source: SourceData, Key: "age", Op: OpLess, Value: 12.5},
		{Source: SourceData, Key: "plan", Op: OpGreaterEq, Value: time.Date(2025, 5, 3, 10, 0, 0, 0, time.UTC)},
		{Source: SourceData, Key: "age", Op: OpLess, Value: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)},
		{Source: SourceEvent, Key: "purchase", Op: OpExists},
		{Source: SourceEvent, Key: "open", Op: OpSince, Value: now.Add(-2 * day)},
		{Source: SourceEvent, Key: "purchase", Op: OpLastBefore, Value: now.Add(-day)},
		{Source: SourceContact, Column: ColumnSubscribed, Op: OpEquals, Value: true},
		{Source: SourceContact, Column: ColumnSubscribed, Op: OpEquals, Value: false},
	}
}

// randomMatch makes a random tree of the tests, negations and nested
// unions included.
func randomMatch(rng *rand.Rand, tests []Test, depth int) *Match {
	m := &Match{Any: rng.IntN(2) == 0}
	for range 1 + rng.IntN(3) {
		var g MatchGroup
		for range rng.IntN(3) {
			t := tests[rng.IntN(len(tests))]
			t.Not = rng.IntN(3) == 0
			g.Tests = append(g.Tests, t)
		}
		if depth < 2 && (len(g.Tests) == 0 || rng.IntN(3) == 0) {
			g.Nested = randomMatch(rng, tests, depth+1)
		}
		m.Groups = append(m.Groups, g)
	}
	return m
}

// compareBitmaps checks, in one snapshot, the bitmap count and a page
// against the SQL plan's. It reports the audience it disagrees on.
func compareBitmaps(ctx context.Context, db *DB, a Audience, offset int) error {
	if !bitmapCovers(a) {
		return fmt.Errorf("not covered: %+v", a.Match)
	}
	r, contacts, err := db.beginBitmapRead(ctx, a.ProjectID)
	if err != nil {
		return err
	}
	defer r.close()
	s, err := r.audience(a)
	if err != nil {
		return err
	}
	set, args := a.setSQL("", "", true, false)
	var want int
	if err := r.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+set+`)`, args...).Scan(&want); err != nil {
		return err
	}
	if got := s.count(contacts); got != want {
		return fmt.Errorf("bitmap count %d, SQL %d: %s", got, want, describe(a))
	}
	page, err := r.page(a, contacts, offset, 5)
	if err != nil {
		return err
	}
	wantPage, err := AudiencePage(ctx, txQuerier{r.tx}, a, offset, 5)
	if err != nil {
		return err
	}
	if got, wids := ids(page), ids(wantPage); !slices.Equal(got, wids) {
		return fmt.Errorf("bitmap page at %d %v, SQL %v: %s", offset, got, wids, describe(a))
	}
	return nil
}

func ids(cs []Contact) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func describe(a Audience) string {
	var s func(m *Match) string
	s = func(m *Match) string {
		if m == nil {
			return "all"
		}
		out := fmt.Sprintf("any=%v[", m.Any)
		for _, g := range m.Groups {
			out += "("
			for _, t := range g.Tests {
				out += fmt.Sprintf("%v%d:%s:%d:%v ", t.Not, t.Source, t.Key, t.Op, t.Value)
			}
			if g.Nested != nil {
				out += s(g.Nested)
			}
			out += ")"
		}
		return out + "]"
	}
	return fmt.Sprintf("project %s subscribed=%v %s", a.ProjectID, a.SubscribedOnly, s(a.Match))
}

// TestBitmapsFollowWrites runs the four writers of the stored counts' test
// while a reader compares, in one snapshot each, bitmap counts and pages
// of random trees with the SQL plan's; the cache is kept between reads,
// so a version a trigger fails to move shows as a stale set.
func TestBitmapsFollowWrites(t *testing.T) {
	sqliteOnly(t, "the bitmaps of segment counts, not used on PostgreSQL yet")
	db := openAudienceDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC)
	if err := db.Write(ctx, func(tx *Tx) error {
		return tx.InsertProject(ctx, Project{ID: "q", Name: "q", Public: "pk2", Secret: "sk2", CreatedAt: now, UpdatedAt: now})
	}); err != nil {
		t.Fatal(err)
	}
	tests := bitmapTests(now)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	audiences := func() []Audience {
		var out []Audience
		for _, p := range []string{"p", "q"} {
			for _, tt := range tests {
				out = append(out, Audience{ProjectID: p, Match: one(tt)}, Audience{ProjectID: p, Match: one(tt), SubscribedOnly: true})
			}
			for range 6 {
				out = append(out, Audience{ProjectID: p, Match: randomMatch(rng, tests, 0), SubscribedOnly: rng.IntN(4) == 0})
			}
		}
		return out
	}
	writers, rounds := 4, 120
	if testing.Short() {
		rounds = 40
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &countWrites{rng: rand.New(rand.NewPCG(uint64(i), 11)), projects: []string{"p", "q"}, next: i * 1_000_000, now: now}
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
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	checks := 0
	for running := true; running; {
		select {
		case <-stop:
			running = false
		default:
		}
		for _, a := range audiences() {
			if err := compareBitmaps(ctx, db, a, rng.IntN(3)*rng.IntN(40)); err != nil {
				t.Fatal(err)
			}
			checks++
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if db.bitmaps.bytes() == 0 {
		t.Fatal("the bitmap cache holds nothing")
	}
	t.Logf("%d comparisons", checks)
}

// TestBitmapsAfterEachWrite makes one write of each kind, then compares
// every covered test (and its negation) with the SQL plan, the cache
// warmed before the write: a set the write changed must be read again.
// It includes a contact deleted and its id given to a new contact (a send
// that previewed a contact deleted meanwhile does that), which only the
// directory's version catches.
func TestBitmapsAfterEachWrite(t *testing.T) {
	sqliteOnly(t, "the bitmaps of segment counts, not used on PostgreSQL yet")
	db := openAudienceDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC)
	tests := bitmapTests(now)
	check := func(step string) {
		t.Helper()
		for _, tt := range tests {
			for _, not := range []bool{false, true} {
				tt.Not = not
				for _, sub := range []bool{false, true} {
					a := Audience{ProjectID: "p", Match: one(tt), SubscribedOnly: sub}
					if err := compareBitmaps(ctx, db, a, 0); err != nil {
						t.Fatalf("after %s: %v", step, err)
					}
				}
			}
		}
	}
	write := func(step string, f func(tx *Tx) error) {
		t.Helper()
		check("warming for " + step)
		if err := db.Write(ctx, f); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check(step)
	}
	contact := func(id, data string, subscribed bool) Contact {
		return Contact{ID: id, ProjectID: "p", Email: id + "@example.com", Subscribed: subscribed,
			Data: json.RawMessage(data), CreatedAt: now, UpdatedAt: now}
	}
	event := func(id, contact, name string, at time.Time) Event {
		return Event{ID: id, ProjectID: "p", ContactID: contact, Name: name, Data: json.RawMessage("{}"), CreatedAt: at}
	}
	write("a contact created", func(tx *Tx) error {
		return tx.InsertContact(ctx, contact("new1", `{"plan":"pro","n":13,"age":"2025-05-05","tags":["a",12]}`, false))
	})
	write("data changed", func(tx *Tx) error {
		return tx.UpdateContact(ctx, contact("c0001", `{"plan":12,"n":12,"age":"2025-07-01"}`, true))
	})
	write("unsubscribed", func(tx *Tx) error {
		return tx.UpdateContact(ctx, contact("c0002", `{"plan":"pro","n":11}`, false))
	})
	write("an event", func(tx *Tx) error { return tx.InsertEvent(ctx, event("ev1", "c0003", "open", now)) })
	write("a repeated event", func(tx *Tx) error {
		return tx.InsertEvent(ctx, event("ev2", "c0003", "open", now.Add(-time.Hour)))
	})
	write("events in a batch", func(tx *Tx) error {
		return tx.InsertEvents(ctx, []Event{event("ev3", "c0004", "purchase", now.Add(-72*time.Hour)),
			event("ev4", "c0005", "open", now)})
	})
	write("a field removed", func(tx *Tx) error {
		_, err := tx.DeleteContactField(ctx, "p", "tags", now)
		return err
	})
	write("events of a name deleted", func(tx *Tx) error {
		_, err := tx.DeleteEventsNamed(ctx, "p", "open")
		return err
	})
	write("a contact deleted", func(tx *Tx) error {
		_, err := tx.DeleteContact(ctx, "p", "c0006")
		return err
	})
	write("a contact deleted, its id reused", func(tx *Tx) error {
		if _, err := tx.DeleteContact(ctx, "p", "c0007"); err != nil {
			return err
		}
		for i := range 3 { // rowids move on, so the reused id gets another
			if err := tx.InsertContact(ctx, contact(fmt.Sprintf("pad%d", i), `{}`, true)); err != nil {
				return err
			}
		}
		return tx.InsertContact(ctx, contact("c0007", `{"plan":"pro","n":50,"age":"2025-05-06"}`, false))
	})
	write("the project reset", func(tx *Tx) error { return tx.ResetProject(ctx, "p", map[string]bool{"projects": true}) })
	write("contacts again", func(tx *Tx) error {
		return tx.InsertContact(ctx, contact("c0001", `{"plan":"pro","n":40,"age":"2025-05-05"}`, false))
	})
}

// Migration 19 goes down to the stored counts of 18 and up again.
func TestMigrationAudienceVersionsDown(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	if _, err := p.UpTo(ctx, 19); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at)
		VALUES ('p', 'p', 'pk_p', 'sk_p', 0, 0);
		INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
		VALUES ('c', 'p', 'c@x.test', 0, '{"plan":"pro"}', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 18); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM audience_counts WHERE kind = 4`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d unsubscribed counts after down (%v)", n, err)
	}
	if _, err := p.UpTo(ctx, 19); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT n FROM audience_counts WHERE kind = 4 AND project_id = 'p'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("unsubscribed count %d after up (%v)", n, err)
	}
}
