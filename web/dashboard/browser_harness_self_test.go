package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
)

// The harness itself: a page that throws, logs an error, breaks its CSP
// and loads a missing file must give four problems, or the journeys'
// silence means nothing.
func TestBrowser_HarnessSeesProblems(t *testing.T) {
	ln := listenLoopback(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><p>x</p><script src="/bad.js"></script><script>alert(1)</script><img src="/missing.png">`))
	})
	mux.HandleFunc("/bad.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`console.error("boom"); setTimeout(() => { throw new Error("thrown") }, 0);`))
	})
	ts := serve(t, ln, mux)
	tb := newTab(t, ts.URL)
	tb.open("/")
	tb.waitText("x")
	tb.waitJS(`performance.getEntriesByType("resource").length >= 2`, 5e9)
	joined := strings.Join(tb.settle(), "\n")
	for _, want := range []string{"boom", "thrown", "Content Security Policy", "404"} {
		if !strings.Contains(joined, want) {
			t.Errorf("harness missed %q; saw:\n%s", want, joined)
		}
	}
	tb.mu.Lock()
	tb.problems = nil // seen on purpose
	tb.mu.Unlock()
}
