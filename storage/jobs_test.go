package storage

import (
	"context"
	"testing"
	"time"
)

// NextJobTime finds the earliest due time after the given one among the
// queued jobs of the kinds asked for, and the earliest lease, whatever
// kind holds it.
func TestNextJobTimeLooksPerKind(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	if err := db.Write(ctx, insertProject("p")); err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_000_000, 0)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	err := db.Write(ctx, func(tx *Tx) error {
		for i, j := range []struct {
			kind string
			due  int
		}{{"a", 5}, {"a", 50}, {"b", 20}, {"c", 1}, {"b", 0}} {
			if _, err := tx.InsertJob(ctx, Job{ID: string(rune('p' + i)), ProjectID: "p", Kind: j.kind, Payload: []byte("{}"),
				RunAt: at(j.due), MaxAttempts: 3, CreatedAt: base}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		after int
		kinds []string
		want  int // -1: none
	}{
		{0, []string{"a", "b"}, 5}, {5, []string{"a", "b"}, 20}, {20, []string{"a", "b"}, 50},
		{50, []string{"a", "b"}, -1}, {0, []string{"b", "c"}, 1}, {0, nil, -1},
	} {
		next, ok, err := NextJobTime(ctx, db.Reader(), at(c.after), c.kinds)
		switch {
		case err != nil:
			t.Fatal(err)
		case c.want < 0 && ok:
			t.Errorf("after %d, %v: %v, want none", c.after, c.kinds, next)
		case c.want >= 0 && (!ok || !next.Equal(at(c.want))):
			t.Errorf("after %d, %v: %v %v, want %v", c.after, c.kinds, next, ok, at(c.want))
		}
	}
	// A lease counts whatever its kind.
	err = db.Write(ctx, func(tx *Tx) error {
		_, err := tx.ClaimJobs(ctx, []string{"c"}, at(1), at(3), 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if next, ok, err := NextJobTime(ctx, db.Reader(), at(1), []string{"a"}); err != nil || !ok || !next.Equal(at(3)) {
		t.Fatalf("with a lease until 3: %v %v %v", next, ok, err)
	}
}

// Migration 21 drops the index of queued jobs by due time alone, and
// brings it back down again.
func TestMigrationDropsQueuedJobsIndex(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	indexed := func() bool {
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'jobs_queued'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if _, err := p.Up(ctx); err != nil || indexed() {
		t.Fatalf("after up: indexed %v, %v", indexed(), err)
	}
	if _, err := p.DownTo(ctx, 20); err != nil || !indexed() {
		t.Fatalf("after down: indexed %v, %v", indexed(), err)
	}
}
