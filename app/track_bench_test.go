package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
)

// BenchmarkTrackWrites is app.Track without HTTP at 64 concurrent callers:
// the ceiling the group-committing writer puts on /v1/track. The data is
// /v1/track's benchmark body as the handler decodes it (numbers stay
// json.Number), so that a repeat changes nothing, as it does over HTTP.
func BenchmarkTrackWrites(b *testing.B) {
	ctx := context.Background()
	a, projectID := trackBenchApp(b)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	for c := 0; c < 64; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				_, err := a.Audience.Track(ctx, projectID, trackBenchInput(i))
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "track/s")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
}

// BenchmarkTrackOneByOne is app.Track from one caller: every transaction
// holds one write, so that its cost per event (the statements, the WAL
// frames of one commit) does not depend on how the writer's batches fill
// on a busy machine. It is the A/B measure of changes to an event's writes
// (docs/performance.md, "The tracked event, fourth pass").
func BenchmarkTrackOneByOne(b *testing.B) {
	ctx := context.Background()
	a, projectID := trackBenchApp(b)
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range int64(b.N) {
		_, err := a.Audience.Track(ctx, projectID, trackBenchInput(i))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
}

// trackBenchApp is an App over a fresh database with one project.
func trackBenchApp(b *testing.B) (*app.App, string) {
	b.Helper()
	db, err := storage.Open(b.Context(), b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	a := app.New(app.Options{DB: db, Log: slog.New(slog.DiscardHandler)})
	p, err := a.Accounts.CreateProject(b.Context(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return a, p.ID
}

// trackBenchInput is the i-th track: one of 5,000 contacts, /v1/track's
// benchmark data as the handler decodes it (numbers stay json.Number).
func trackBenchInput(i int64) audience.TrackInput {
	email, event := fmt.Sprintf("user%d@example.com", i%5000), "page-viewed"
	return audience.TrackInput{Email: &email, Event: &event,
		Data: map[string]any{"plan": "pro", "visits": json.Number(strconv.FormatInt(i%100, 10)), "path": "/pricing"}}
}
