package web_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// benchProbe looks inside a sending benchmark's measured phase, when an
// environment variable asks, without changing the figures it reports:
//   - HERALD_BENCH_PHASE_PROFILE=file: a CPU profile of that phase only
//     (go test -cpuprofile also covers the setup: a queue filled over HTTP,
//     contacts seeded, the database closed);
//   - HERALD_BENCH_IO=1: the write system calls per message (/proc/self/io),
//     two per WAL frame, one per page the checkpoint copies, and the
//     network writes of SMTP and HTTP, and the write transactions
//     committed per message with the writes each held;
//   - HERALD_BENCH_MEMWATCH=1: every second, the resident memory next to the
//     Go runtime's on stderr (the rest is the binary and SQLite's page
//     caches), and with HERALD_BENCH_MEMWATCH_HEAP=file a heap profile after
//     20 seconds.
type benchProbe struct {
	env       *webtest.Env
	writes0   int64
	commits0  int64
	dbWrites0 int64
	profiling bool
	done      chan struct{}
}

func startProbe(e *webtest.Env) *benchProbe {
	p := &benchProbe{env: e, writes0: writeSyscalls(), commits0: e.Counts.Commits.Load(), dbWrites0: e.Counts.Writes.Load()}
	if path := os.Getenv("HERALD_BENCH_PHASE_PROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			p.profiling = true
		}
	}
	if os.Getenv("HERALD_BENCH_MEMWATCH") != "" {
		p.done = make(chan struct{})
		go memWatch(p.done, os.Getenv("HERALD_BENCH_MEMWATCH_HEAP"))
	}
	return p
}

// stop ends the probe after n messages.
func (p *benchProbe) stop(b *testing.B, n int) {
	if p.profiling {
		pprof.StopCPUProfile()
	}
	if p.done != nil {
		close(p.done)
	}
	if os.Getenv("HERALD_BENCH_IO") != "" {
		b.Logf("write system calls per message: %.1f", float64(writeSyscalls()-p.writes0)/float64(n))
		commits, writes := p.env.Counts.Commits.Load()-p.commits0, p.env.Counts.Writes.Load()-p.dbWrites0
		b.Logf("write transactions per message: %.2f, %.2f writes each", float64(commits)/float64(n),
			float64(writes)/float64(max(commits, 1)))
	}
}

func memWatch(done chan struct{}, heapFile string) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-done:
			return
		case <-t.C:
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(os.Stderr, "rss %d MB (peak %d), go sys %d MB, heap inuse %d MB, heap alloc %d MB\n",
			procStatusKB("VmRSS:")>>10, procStatusKB("VmHWM:")>>10, m.Sys>>20, m.HeapInuse>>20, m.HeapAlloc>>20)
		if n == 20 && heapFile != "" {
			if f, err := os.Create(heapFile); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}
}

// writeSyscalls is the number of write system calls the process has made.
func writeSyscalls() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// procStatusKB is a field of /proc/self/status in KB (Linux).
func procStatusKB(field string) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
