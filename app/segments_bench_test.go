package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/storage"
)

// BenchmarkSegmentCount counts segments over HERALD_BENCH_CONTACTS
// contacts (default 100,000; the target is under 200 ms per count
// at 1,000,000 on 2 cores): bench/segments.sh runs it at a million. The
// data is seeded once, in one write, before the sub-benchmarks; every
// count is a segment refresh's count (compile, then COUNT), reported as
// ms/count.
func BenchmarkSegmentCount(b *testing.B) {
	n := 100_000
	if s := os.Getenv("HERALD_BENCH_CONTACTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	// HERALD_BENCH_SEED_DIR keeps the seeded database between runs
	// (bench/all.sh runs the counts three times; seeding a million contacts
	// takes minutes). A directory seeded for another size is seeded again.
	dir := b.TempDir()
	cached := false
	if d := os.Getenv("HERALD_BENCH_SEED_DIR"); d != "" {
		dir = filepath.Join(d, "segments-"+strconv.Itoa(n))
		_, err := os.Stat(filepath.Join(dir, "seeded"))
		cached = err == nil
		if !cached {
			_ = os.RemoveAll(dir)
		}
	}
	db, err := storage.Open(ctx, dir, storage.Options{})
	var tooNew storage.ErrTooNew
	if cached && errors.As(err, &tooNew) {
		// Seeded by a Herald with newer migrations: seed it again. (An
		// older seed is brought up to date by Open's migrations.)
		cached = false
		_ = os.RemoveAll(dir)
		db, err = storage.Open(ctx, dir, storage.Options{})
	}
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	clock := clocktest.NewFake(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC))
	a := app.New(app.Options{DB: db, Clock: clock, Log: slog.New(slog.DiscardHandler)})
	var projectID string
	if cached {
		if err := db.Reader().QueryRow(ctx, `SELECT id FROM projects LIMIT 1`).Scan(&projectID); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d contacts earlier, in %s", n, dir)
	} else {
		p, err := a.Accounts.CreateProject(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		projectID = p.ID
		start := time.Now()
		if err := seedBench(ctx, db, p.ID, clock.Now(), n); err != nil {
			b.Fatal(err)
		}
		checkpoint(b, dir)
		if err := os.WriteFile(filepath.Join(dir, "seeded"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d contacts in %s", n, time.Since(start).Round(time.Millisecond))
	}

	cases := []struct{ name, cond string }{
		{"data-equals", f("data.plan", "equals", "pro")},
		{"event-triggered", f("event.purchase", "triggered", nil)},
		{"event-within", f("event.purchase", "triggeredWithin", 30, "days")},
		{"data-range", f("data.age", "greaterThan", 40)},
		{"data-and-event", tree("AND", group(flt("data.plan", "equals", "pro"), flt("event.purchase", "triggered", nil)))},
		{"data-or-event", tree("OR", group(flt("data.plan", "equals", "pro")), group(flt("event.purchase", "triggered", nil)))},
		{"not-triggered", f("event.purchase", "notTriggered", nil)},
		{"subscribed-and-data", tree("AND", group(flt("subscribed", "equals", true), flt("data.plan", "equals", "pro")))},
		{"data-exists", f("data.plan", "exists", nil)},
		{"data-within", f("data.signup", "within", 200, "days")},
		{"data-not-equals", f("data.plan", "notEquals", "pro")},
		{"nested-groups", tree("AND", map[string]any{"filters": []map[string]any{flt("data.plan", "equals", "pro")},
			"conditions": json.RawMessage(tree("OR", group(flt("event.purchase", "triggered", nil)),
				group(flt("data.age", "lessThan", 30), flt("subscribed", "equals", true))))})},
	}
	for _, c := range cases {
		cond, err := audience.ParseCondition(json.RawMessage(c.cond), "condition")
		if err != nil {
			b.Fatal(err)
		}
		if os.Getenv("HERALD_BENCH_PLANS") != "" {
			// The plan of each shape's count, for docs/performance.md.
			aud, err := a.Audience.ConditionAudience(ctx, db.Reader(), projectID, cond)
			if err != nil {
				b.Fatal(err)
			}
			plan, err := storage.ExplainAudienceCount(ctx, db.Reader(), aud)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("plan of %s:\n  %s", c.name, strings.Join(plan, "\n  "))
		}
		b.Run(c.name, func(b *testing.B) {
			var count int
			q := db.Scanner() // as the app's segment counts
			if os.Getenv("HERALD_BENCH_READER") != "" {
				q = db.Reader() // the pread pool, for an A/B
			}
			// One count before the clock starts: a serving process's scan
			// connections mapped their pages long ago (storage/scan.go); the
			// first count of a connection pays the page faults.
			if _, err := storage.CountAudience(ctx, q, mustAudience(b, a, db, projectID, cond)); err != nil {
				b.Fatal(err)
			}
			cpu0 := processCPU()
			for b.Loop() {
				aud, err := a.Audience.ConditionAudience(ctx, db.Reader(), projectID, cond)
				if err != nil {
					b.Fatal(err)
				}
				if count, err = storage.CountAudience(ctx, q, aud); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/count")
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/count")
			b.ReportMetric(float64(count), "members")
		})
	}
	// What a count pays when its sets are not cached (storage/bitmap_*.go):
	// after a write that changed one of them (a tracked event that moves
	// one contact between plans: the plan's set is read again), and at
	// the first count after a start (the project's directory and every
	// set read once).
	dataAndEvent, err := audience.ParseCondition(json.RawMessage(cases[4].cond), "condition")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("after-a-write", func(b *testing.B) {
		email, event := "user5@example.com", "bench-touch"
		var trackCPU time.Duration
		cpu0 := processCPU()
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			c0 := processCPU()
			plan := []string{"pro", "free"}[i%2]
			if _, err := a.Audience.Track(ctx, projectID, audience.TrackInput{Email: &email, Event: &event,
				Data: map[string]any{"plan": plan}}); err != nil {
				b.Fatal(err)
			}
			trackCPU += processCPU() - c0
			b.StartTimer()
			if _, err := storage.CountAudience(ctx, db.Scanner(), mustAudience(b, a, db, projectID, dataAndEvent)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/count")
		b.ReportMetric(float64((processCPU()-cpu0-trackCPU).Microseconds())/1000/float64(b.N), "cpu-ms/count")
	})
	b.Run("first-count-after-start", func(b *testing.B) {
		cpu := time.Duration(0)
		for b.Loop() {
			b.StopTimer()
			fresh, err := storage.Open(ctx, dir, storage.Options{})
			if err != nil {
				b.Fatal(err)
			}
			fa := app.New(app.Options{DB: fresh, Clock: clock, Log: slog.New(slog.DiscardHandler)})
			aud := mustAudience(b, fa, fresh, projectID, dataAndEvent)
			c0 := processCPU()
			b.StartTimer()
			if _, err := storage.CountAudience(ctx, fresh.Scanner(), aud); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cpu += processCPU() - c0
			fresh.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/count")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/count")
	})
	// The first page of a dynamic segment's members, as GET
	// /segments/{id}/contacts answers it: the total and 20 contacts, newest
	// first.
	name := "Pro buyers"
	seg, err := a.Audience.CreateSegment(ctx, projectID, audience.SegmentInput{Name: &name,
		Condition: json.RawMessage(tree("AND", group(flt("data.plan", "equals", "pro"), flt("event.purchase", "triggered", nil))))})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("members-first-page", func(b *testing.B) {
		if _, err := a.Audience.SegmentContacts(ctx, projectID, seg.ID, paging.PageRequest{Page: 1, PageSize: 20}); err != nil {
			b.Fatal(err) // warm, as above
		}
		cpu0 := processCPU()
		for b.Loop() {
			page, err := a.Audience.SegmentContacts(ctx, projectID, seg.ID, paging.PageRequest{Page: 1, PageSize: 20})
			if err != nil {
				b.Fatal(err)
			}
			if len(page.Data) != 20 {
				b.Fatalf("page of %d", len(page.Data))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/page")
		b.ReportMetric(float64(db.BitmapBytes())/(1<<20), "cache-MB")
	})
}

func mustAudience(b *testing.B, a *app.App, db *storage.DB, projectID string, cond *audience.Condition) audience.Audience {
	aud, err := a.Audience.ConditionAudience(context.Background(), db.Reader(), projectID, cond)
	if err != nil {
		b.Fatal(err)
	}
	return aud
}

// seedBench inserts n contacts, a tenth with a purchase event and half
// with a page view, in one write through prepared statements (the
// contact_values triggers run as they would in production).
func seedBench(ctx context.Context, db *storage.DB, projectID string, now time.Time, n int) error {
	plans := []string{"free", "pro", "team", "enterprise"}
	rng := rand.New(rand.NewPCG(1, 2))
	return db.Write(ctx, func(tx *storage.Tx) error {
		for i := range n {
			id := fmt.Sprintf("%08d-0000-7000-8000-000000000000", i)
			data := fmt.Sprintf(`{"plan":%q,"age":%d,"country":"de","signup":"2025-%02d-%02dT10:00:00Z","score":%d}`,
				plans[rng.IntN(4)], rng.IntN(80), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(1000))
			created := storage.Millis(now) - int64(n-i)*1000
			if _, err := tx.Exec(ctx, `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, id, projectID, "user"+strconv.Itoa(i)+"@example.com", rng.IntN(10) > 0,
				data, created, created); err != nil {
				return err
			}
			for j, name := range []string{"purchase", "page-view"} {
				if rng.IntN([]int{10, 2}[j]) != 0 {
					continue
				}
				at := storage.Millis(now) - rng.Int64N(int64(90*24*time.Hour/time.Millisecond))
				if _, err := tx.Exec(ctx, `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
					VALUES (?, ?, ?, ?, '{}', ?)`, fmt.Sprintf("%s-%d", id, j), projectID, id, name, at); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// checkpoint copies the seed out of the WAL, as the background
// checkpointer would have by the time anyone counts.
func checkpoint(b *testing.B, dir string) {
	w, err := storage.OpenWithoutMigrating(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
}
