package web_test

import (
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// serverClock times each request inside the server under test: from the
// moment its handler has the request (headers read, body still in the
// socket) to the moment the handler returns (the answer is in the
// connection's buffer; what is left is one write to the socket). The
// benchmarks' p99-ms is the clients' view, which in this one process also
// counts the load generator's own work (building, writing and parsing 64
// clients' requests, its garbage collection) and every wait of the
// client's goroutines for one of the two processors; srv-p99-ms is the
// part the server spends on a request once it has it, waits for the
// processor included. Both are reported for the candidate and its
// baseline (docs/performance.md, "What p99 measures").
type serverClock struct {
	on    atomic.Bool
	next  atomic.Int64
	times []time.Duration
}

// wrap times h's requests while the clock runs.
func (c *serverClock) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.on.Load() {
			h.ServeHTTP(w, r)
			return
		}
		t0 := time.Now()
		h.ServeHTTP(w, r)
		if i := c.next.Add(1) - 1; i < int64(len(c.times)) {
			c.times[i] = time.Since(t0)
		}
	})
}

// start times the next n requests; no request may be in flight.
func (c *serverClock) start(n int) {
	c.times = make([]time.Duration, n)
	c.next.Store(0)
	c.on.Store(true)
}

// report stops the clock and reports the p99 of the timed requests.
func (c *serverClock) report(b *testing.B) {
	c.on.Store(false)
	n := min(int(c.next.Load()), len(c.times))
	if n == 0 {
		return
	}
	all := slices.Clone(c.times[:n])
	slices.Sort(all)
	b.ReportMetric(float64(all[n*99/100].Microseconds())/1000, "srv-p99-ms")
}
