package web

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/clock/clocktest"
)

// A flood from ever new addresses within one minute cannot grow the table
// past its bound; the addresses already counted stay limited.
func TestRateLimiterMemoryBounded(t *testing.T) {
	clock := clocktest.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := newRateLimiter(2, time.Minute, clock.Now)
	l.allow("abuser")
	l.allow("abuser")
	for i := 0; i < maxLimiterKeys+5000; i++ {
		if i%1000 == 0 {
			clock.Advance(time.Millisecond * 2)
		}
		l.allow(fmt.Sprint("10.", i))
	}
	if n := len(l.windows); n > maxLimiterKeys {
		t.Fatalf("%d windows, bound %d", n, maxLimiterKeys)
	}
	if ok, _, _ := l.allow("abuser"); ok {
		t.Fatal("a counted address escaped its limit under the flood")
	}
	// Once the windows have ended the table empties again.
	clock.Advance(2 * time.Minute)
	for i := 0; i < 3; i++ {
		clock.Advance(2 * time.Second)
		l.allow(fmt.Sprint("new", i))
	}
	if n := len(l.windows); n > 10 {
		t.Fatalf("%d windows after the minute", n)
	}
}

func TestClientIP(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5555":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.9]:80":      "192.0.2.9",
		"not an address":             "not an address",
	} {
		r := &http.Request{RemoteAddr: in, Header: http.Header{"X-Forwarded-For": {"1.2.3.4"}}}
		if got := clientIP(r); got != want {
			t.Errorf("clientIP(%q) = %q, want %q", in, got, want)
		}
	}
}

// HERALD_MAX_CONNECTIONS: never more connections served at once; the next
// one is served once one closes.
func TestLimitListener(t *testing.T) {
	var inFlight, most atomic.Int32
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		inFlight.Add(-1)
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = LimitListener(ln, 2)
	srv.Start()
	defer srv.Close()

	done := make(chan error, 5)
	for i := 0; i < 5; i++ {
		go func() {
			tr := &http.Transport{DisableKeepAlives: true}
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for inFlight.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if inFlight.Load() != 2 {
		t.Fatalf("%d in flight, want 2", inFlight.Load())
	}
	close(release)
	for i := 0; i < 5; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() != 2 {
		t.Fatalf("%d served at once, limit 2", most.Load())
	}
}
