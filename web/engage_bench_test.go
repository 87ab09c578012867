package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/heraldmail/herald/web/webtest"
)

// The engagement benchmarks (bench/engage.sh): GET /t/o/{token} (the open
// pixel) and GET /t/c/{token} (the click redirect) through the full stack,
// 64 concurrent clients, each request's email.open or email.click event and
// first-open/click stamp committed before the answer (the writer commits
// the requests that queue during a transaction together). The tokens cycle
// over engageEmails messages, and the app's fake clock moves so that every
// request is recorded (an open of an email, or a click of a link, counts
// once a minute: recordEvery); each benchmark counts the events it made.
// The baseline, BenchmarkEngageBaseline, is an httprouter GET handler that
// answers the same pixel with no work: the ceiling of the HTTP stack on
// this machine, which the engagement routes share.

// engageEmails is large enough that the clock moves rarely: each minute it
// moves wakes the job dispatcher (its idle wait is 30 seconds), whose job
// claims would otherwise weigh on a benchmark that runs a minute of the
// clock every few milliseconds, as they never do on a real clock (with 200
// emails they took 7% of the click's CPU).
const engageEmails = 1000

// engageLinks sends engageEmails messages with tracking and returns the
// paths of their open pixels and first click links.
func engageLinks(b *testing.B, clock *serverClock) (*webtest.Env, []string, []string) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, Wrap: clock.wrap})
	verifiedDomain(b, e, "herald.test")
	e.RouteMail("example.net")
	for i := range engageEmails {
		if r := e.Secret("POST", "/v1/send", sendBody(i, `<p>Hi, read <a href="https://example.com/post?a=1">this</a>.</p>`+articleHTML)); r.Status != 200 {
			b.Fatalf("send: %d %s", r.Status, r.Body)
		}
	}
	got := e.Sink.Wait(engageEmails, time.Minute)
	if len(got) != engageEmails {
		b.Fatalf("delivered %d of %d", len(got), engageEmails)
	}
	var opens, clicks []string
	for _, m := range got {
		html := htmlPart(b, m.Data)
		o, c := openPixel.FindStringSubmatch(html), clickLink.FindStringSubmatch(html)
		if o == nil || c == nil {
			b.Fatalf("no tracking links in %s", html)
		}
		opens, clicks = append(opens, o[1]), append(clicks, c[1])
	}
	return e, opens, clicks
}

func BenchmarkEngageOpen(b *testing.B) {
	clock := &serverClock{}
	e, opens, _ := engageLinks(b, clock)
	n := loadGET(b, e.Server.URL, e, recordEvery(e, opens), http.StatusOK, clock)
	wantEvents(b, e, "email.open", n)
}

func BenchmarkEngageClick(b *testing.B) {
	clock := &serverClock{}
	e, _, clicks := engageLinks(b, clock)
	n := loadGET(b, e.Server.URL, e, recordEvery(e, clicks), http.StatusFound, clock)
	wantEvents(b, e, "email.click", n)
}

// recordEvery makes each request for a path come at least a minute of the
// app's clock after the last one for that path was answered, so that none
// is a repeat the once-a-minute rule drops: a request waits for the one
// before it on the same path (rarely: there are more paths than clients)
// and moves the clock on if it has not moved a minute since. The clock
// moves about a minute per round over the paths.
func recordEvery(e *webtest.Env, paths []string) func(i int, send func(path string) bool) bool {
	type slot struct {
		mu       sync.Mutex
		answered time.Time
	}
	slots := make([]slot, len(paths))
	return func(i int, send func(string) bool) bool {
		s := &slots[i%len(paths)]
		s.mu.Lock()
		defer s.mu.Unlock()
		if due := s.answered.Add(time.Minute); !s.answered.IsZero() {
			if now := e.Clock.Now(); now.Before(due) {
				e.Clock.Advance(due.Sub(now))
			}
		}
		ok := send(paths[i%len(paths)])
		s.answered = e.Clock.Now()
		return ok
	}
}

// wantEvents fails the benchmark unless every one of its n requests
// recorded its event: it measures the recorded path, not the repeat.
func wantEvents(b *testing.B, e *webtest.Env, name string, n int64) {
	var got int64
	if err := e.DB.Reader().QueryRow(b.Context(), `SELECT count(*) FROM events WHERE name = ?`, name).Scan(&got); err != nil {
		b.Fatal(err)
	}
	if got < n {
		b.Fatalf("%d %s events recorded for %d requests", got, name, n)
	}
}

// BenchmarkEngageBaseline is the ceiling: a GET handler that answers the
// pixel and does nothing else.
func BenchmarkEngageBaseline(b *testing.B) {
	r := httprouter.New()
	r.GET("/t/o/:token", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Cache-Control", "no-store, max-age=0")
		_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
	clock := &serverClock{}
	srv := httptest.NewServer(clock.wrap(r))
	defer srv.Close()
	paths := make([]string, engageEmails)
	for i := range paths {
		paths[i] = "/t/o/" + string(rune('a'+i%26)) + "token"
	}
	loadGET(b, srv.URL, nil, func(i int, send func(string) bool) bool { return send(paths[i%len(paths)]) }, http.StatusOK, clock)
}

// loadGET sends b.N GET requests from benchClients goroutines without
// following redirects (runLoad), and reports req/s, p99 and the server's
// p99 (clock wraps the server's handler). request i calls send with its
// path. It returns how many requests were sent. With e, the closed loop
// runs under a benchProbe (HERALD_BENCH_PHASE_PROFILE, HERALD_BENCH_IO).
func loadGET(b *testing.B, base string, e *webtest.Env, request func(i int, send func(path string) bool) bool, want int, clock *serverClock) int64 {
	client := benchClient()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	send := func(path string) bool {
		resp, err := client.Get(base + path)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == want
	}
	var sent atomic.Int64
	var probe *benchProbe
	var stopProbe sync.Once
	if e != nil {
		probe = startProbe(e)
		defer stopProbe.Do(func() { probe.stop(b, b.N) })
	}
	runLoad(b, clock, func(i int64) bool {
		if i > int64(b.N) && probe != nil {
			stopProbe.Do(func() { probe.stop(b, b.N) }) // the paced loop has begun
		}
		sent.Add(1)
		return request(int(i), send)
	})
	return sent.Load()
}
