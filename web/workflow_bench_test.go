package web_test

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// The workflow benchmarks (bench/workflows.sh) measure the four figures of
// issue 9, each against a baseline of the same run.

// BenchmarkTrackWith50Workflows is BenchmarkTrackFullStack with 50 enabled
// workflows listening for other event names: the engine's cost on the hot
// path is a map lookup per event.
func BenchmarkTrackWith50Workflows(b *testing.B) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: true})
	for i := range 50 {
		createWorkflow(b, e, map[string]any{"name": fmt.Sprint("w", i), "eventName": fmt.Sprint("other-", i), "enabled": true})
	}
	loadPOST(b, e, "/v1/track", e.Project.Public, trackBody)
}

// BenchmarkTrackNoWorkflows is the same with no workflow.
func BenchmarkTrackNoWorkflows(b *testing.B) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: true})
	loadPOST(b, e, "/v1/track", e.Project.Public, trackBody)
}

// waitSettled polls, cheaply (an index probe, not a count), until the
// workflow has n executions none of which is in status; the poll must not
// load the machine it measures.
func waitSettled(b *testing.B, e *webtest.Env, wf string, n int, status ...string) {
	deadline := time.Now().Add(30 * time.Minute)
	for {
		busy := 0
		for _, st := range status {
			busy += benchCount(b, e, `SELECT COUNT(*) FROM (SELECT 1 FROM workflow_executions WHERE workflow_id = ? AND status = ? LIMIT 1)`, wf, st)
		}
		if busy == 0 && benchCount(b, e, `SELECT COUNT(*) FROM (SELECT 1 FROM workflow_executions WHERE workflow_id = ? LIMIT 1 OFFSET ?)`, wf, n-1) == 1 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("executions did not settle")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func benchCount(b *testing.B, e *webtest.Env, query string, args ...any) int {
	var n int
	if err := e.DB.Reader().QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkWorkflowThroughput tracks b.N events as fast as the API takes
// them, each enrolling its contact in TRIGGER → UPDATE_CONTACT → EXIT, and
// reports the track rate and the rate of completed executions from the
// first track to the last execution's end (exec/s), and their ratio.
func BenchmarkWorkflowThroughput(b *testing.B) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30})
	w := createWorkflow(b, e, map[string]any{"name": "All", "eventName": "page-viewed", "enabled": true, "allowReentry": true})
	addStep(b, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"seen": true}}})
	addStep(b, e, w.ID, map[string]any{"type": "EXIT"})
	body := func(i int64) any {
		return map[string]any{"email": fmt.Sprintf("user%d@example.com", i), "event": "page-viewed", "data": map[string]any{"i": i}}
	}
	start := time.Now()
	loadPOST(b, e, "/v1/track", e.Project.Public, body)
	tracked := time.Since(start)
	waitSettled(b, e, w.ID, b.N, "RUNNING")
	all := time.Since(start)
	if n := benchCount(b, e, `SELECT COUNT(*) FROM workflow_executions WHERE workflow_id = ? AND status = 'EXITED'`, w.ID); n != b.N {
		b.Fatalf("%d executions exited, want %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/tracked.Seconds(), "track/s")
	b.ReportMetric(float64(b.N)/all.Seconds(), "exec/s")
	b.ReportMetric(100*tracked.Seconds()/all.Seconds(), "exec-%-of-track")
}

// peakRSSMB is the process's peak resident set.
func peakRSSMB() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

func benchN(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// trackDirect records events for n contacts through the app, 16 at once.
func trackDirect(b *testing.B, e *webtest.Env, n int, name string, email func(int) string) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				em, ev := email(i), name
				if _, err := e.App.Audience.Track(context.Background(), e.Project.ID, audience.TrackInput{Email: &em, Event: &ev}); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// BenchmarkWorkflowDelayWave parks DELAY_N (100,000) executions on a DELAY
// that ends at one instant, moves the clock past it and times until every
// one has run its next step, UPDATE_CONTACT: steps/s (two per execution,
// the DELAY's end and the update) against single-row write transactions
// per second on the same database, and the peak RSS; and the process's CPU
// time per step and per baseline transaction.
func BenchmarkWorkflowDelayWave(b *testing.B) {
	n := benchN("DELAY_N", 100000)
	for range b.N {
		e := webtest.New(b, webtest.Options{RateLimit: 1 << 30})
		w := createWorkflow(b, e, map[string]any{"name": "Wave", "eventName": "joined", "enabled": true})
		addStep(b, e, w.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "hours"}})
		addStep(b, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"waved": true}}})
		trackDirect(b, e, n, "joined", func(i int) string { return fmt.Sprintf("wave%d@example.com", i) })
		waitSettled(b, e, w.ID, n, "RUNNING")
		// Baseline: single-row write transactions, one after the other.
		const rows = 2000
		cpu0, t0 := processCPU(), time.Now()
		for i := range rows {
			if err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
				_, err := tx.Exec(context.Background(), `INSERT INTO settings (key, value) VALUES (?, 'x')
					ON CONFLICT (key) DO UPDATE SET value = excluded.value`, fmt.Sprint("bench-", i))
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
		txRate := rows / time.Since(t0).Seconds()
		txCPU := float64(processCPU()-cpu0) / rows / 1e3
		stopProfile := waveProfile(b)
		cpu1, start := processCPU(), time.Now()
		e.Clock.Advance(time.Hour)
		waitSettled(b, e, w.ID, n, "RUNNING", "WAITING")
		stopProfile()
		steps := float64(2*n) / time.Since(start).Seconds()
		stepCPU := float64(processCPU()-cpu1) / float64(2*n) / 1e3
		if c := benchCount(b, e, `SELECT COUNT(*) FROM workflow_executions WHERE workflow_id = ? AND status = 'COMPLETED'`, w.ID); c != n {
			b.Fatalf("%d executions completed, want %d", c, n)
		}
		b.ReportMetric(steps, "steps/s")
		b.ReportMetric(txRate, "tx/s")
		b.ReportMetric(100*steps/txRate, "steps-%-of-tx")
		// CPU per unit moves less than rates on a shared machine.
		b.ReportMetric(stepCPU, "cpu-µs/step")
		b.ReportMetric(txCPU, "cpu-µs/tx")
		b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
	}
}

// waveProfile writes a CPU profile of the wave alone (not of the setup that
// parks the executions) to the file named by WAVE_CPUPROFILE, if set.
func waveProfile(b *testing.B) func() {
	path := os.Getenv("WAVE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// BenchmarkWorkflowWaitLatency parks WAIT_N (10,000) executions on a
// WAIT_FOR_EVENT, tracks the awaited event for each, and reports the p99
// from a track's answer to the moment its step is seen COMPLETED.
func BenchmarkWorkflowWaitLatency(b *testing.B) {
	n := benchN("WAIT_N", 10000)
	for range b.N {
		e := webtest.New(b, webtest.Options{RateLimit: 1 << 30})
		w := createWorkflow(b, e, map[string]any{"name": "Wait", "eventName": "start", "enabled": true})
		addStep(b, e, w.ID, map[string]any{"type": "WAIT_FOR_EVENT", "config": map[string]any{"eventName": "paid", "timeout": 86400}})
		addStep(b, e, w.ID, map[string]any{"type": "EXIT"}) // its step execution is a new row: the poll reads only those
		email := func(i int) string { return fmt.Sprintf("wait%d@example.com", i) }
		trackDirect(b, e, n, "start", email)
		waitSettled(b, e, w.ID, n, "RUNNING")
		byExec := map[string]string{}
		rows, err := e.DB.Reader().Query(context.Background(), `SELECT id, contact_email FROM workflow_executions WHERE workflow_id = ?`, w.ID)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var id, em string
			_ = rows.Scan(&id, &em)
			byExec[id] = em
		}
		rows.Close()
		var from int64
		_ = e.DB.Reader().QueryRow(context.Background(), `SELECT COALESCE(MAX(rowid), 0) FROM workflow_step_executions`).Scan(&from)
		tracked := make([]time.Time, n)
		done := make(map[string]time.Time, n)
		stop := make(chan struct{})
		var mu sync.Mutex
		go func() { // sees each EXIT step execution within a few milliseconds
			for {
				select {
				case <-stop:
					return
				default:
				}
				rows, err := e.DB.Reader().Query(context.Background(), `SELECT rowid, execution_id FROM workflow_step_executions
					WHERE rowid > ? AND step_type = 'EXIT'`, from)
				if err == nil {
					now := time.Now()
					mu.Lock()
					for rows.Next() {
						var id string
						var rowid int64
						_ = rows.Scan(&rowid, &id)
						from = max(from, rowid)
						done[byExec[id]] = now
					}
					mu.Unlock()
					rows.Close()
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
		var wg sync.WaitGroup
		next := make(chan int)
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					em, ev := email(i), "paid"
					if _, err := e.App.Audience.Track(context.Background(), e.Project.ID, audience.TrackInput{Email: &em, Event: &ev}); err != nil {
						b.Error(err)
					}
					tracked[i] = time.Now()
				}
			}()
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		deadline := time.Now().Add(5 * time.Minute)
		for {
			mu.Lock()
			k := len(done)
			mu.Unlock()
			if k >= n {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d waits ended", k, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
		close(stop)
		lat := make([]time.Duration, 0, n)
		mu.Lock()
		for i := range n {
			lat = append(lat, max(0, done[email(i)].Sub(tracked[i])))
		}
		mu.Unlock()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	}
}
