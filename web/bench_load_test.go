package web_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load generators of the HTTP benchmarks. A closed loop (the figure
// of record: req/s, p99-ms, cpu-µs/req) keeps benchClients requests in
// flight, so it runs the machine at saturation, and its latency is mostly
// queueing: by Little's law the mean is benchClients divided by the rate,
// whatever the handler does. A paced loop then offers half the rate the
// closed loop reached, from the same benchClients connections, and times
// each request from the moment it was due (so that a request sent late
// because the one before it was slow counts its delay): p99-half-ms is the
// latency at half load, which is what a service under load shows its
// callers (docs/performance.md, "What p99 measures").

// loadResult is one load: its duration, failures and sorted latencies.
type loadResult struct {
	elapsed time.Duration
	failed  int64
	lat     []time.Duration
}

func (r loadResult) p99ms() float64 {
	if len(r.lat) == 0 {
		return 0
	}
	return float64(r.lat[len(r.lat)*99/100].Microseconds()) / 1000
}

// closedLoop makes requests first..first+n-1 from benchClients goroutines,
// each sending its next request when its last is answered. do makes
// request i and reports whether it succeeded.
func closedLoop(first, n int64, do func(i int64) bool) loadResult {
	var next, failed atomic.Int64
	next.Store(first - 1)
	lat := make([][]time.Duration, benchClients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i >= first+n {
					return
				}
				t0 := time.Now()
				if !do(i) {
					failed.Add(1)
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	return finish(time.Since(start), failed.Load(), lat)
}

// pacedLoop makes requests first..first+n-1 at rate per second in all:
// request k is due k/rate after the start and is sent by goroutine k mod
// benchClients, at once if that goroutine is late. Latency counts from the
// moment a request was due.
func pacedLoop(first, n int64, rate float64, do func(i int64) bool) loadResult {
	var failed atomic.Int64
	lat := make([][]time.Duration, benchClients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int64(c); k < n; k += benchClients {
				due := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				if !do(first + k) {
					failed.Add(1)
				}
				lat[c] = append(lat[c], time.Since(due))
			}
		}()
	}
	wg.Wait()
	return finish(time.Since(start), failed.Load(), lat)
}

func finish(elapsed time.Duration, failed int64, lat [][]time.Duration) loadResult {
	all := slices.Concat(lat...)
	slices.Sort(all)
	return loadResult{elapsed: elapsed, failed: failed, lat: all}
}

// runLoad is the benchmarks' load: b.N requests in a closed loop, timed,
// reporting req/s, p99-ms, cpu-µs/req and peak-MB, and srv-p99-ms when
// clock is not nil. When clock is not nil, b.N/4 requests more are then
// paced at half the closed loop's rate, untimed, for p99-half-ms.
func runLoad(b *testing.B, clock *serverClock, do func(i int64) bool) {
	if clock != nil {
		clock.start(b.N)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	res := closedLoop(1, int64(b.N), do)
	cpu := processCPU() - cpu0
	b.StopTimer()
	if res.failed > 0 {
		b.Fatalf("%d requests failed", res.failed)
	}
	rate := float64(b.N) / res.elapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(res.p99ms(), "p99-ms")
	b.ReportMetric(float64(cpu)/float64(b.N)/1e3, "cpu-µs/req")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-MB")
	if clock == nil {
		return
	}
	clock.report(b)
	if n := int64(b.N / 4); n >= benchClients {
		half := pacedLoop(int64(b.N)+1, n, rate/2, do)
		if half.failed > 0 {
			b.Fatalf("%d paced requests failed", half.failed)
		}
		b.ReportMetric(half.p99ms(), "p99-half-ms")

	}
}
