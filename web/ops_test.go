package web_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/web/webtest"
)

func TestHealthAndReadiness(t *testing.T) {
	e := webtest.New(t, webtest.Options{RateLimit: 1})
	for range 3 { // outside the rate limit, without a key
		r := e.Do("GET", "/healthz", "", nil)
		if r.Status != 200 || r.JSON()["status"] != "ok" {
			t.Fatalf("/healthz: %d %s", r.Status, r.Body)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	var r webtest.Response
	for time.Now().Before(deadline) {
		if r = e.Do("GET", "/readyz", "", nil); r.Status == 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r.Status != 200 || r.JSON()["status"] != "ok" {
		t.Fatalf("/readyz: %d %s", r.Status, r.Body)
	}
	checks := r.JSON()["checks"].(map[string]any)
	for _, c := range []string{"database", "dispatcher", "migrations", "relay"} {
		if checks[c] != "ok" {
			t.Fatalf("check %s: %v", c, checks[c])
		}
	}
}

func TestReadinessNamesAStoppedDispatcher(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	r := e.Do("GET", "/readyz", "", nil)
	checks, _ := r.JSON()["checks"].(map[string]any)
	if r.Status != 503 || r.JSON()["status"] != "unavailable" || !strings.Contains(checks["dispatcher"].(string), "not running") ||
		checks["database"] != "ok" {
		t.Fatalf("/readyz without a dispatcher: %d %s", r.Status, r.Body)
	}
}

// scrape reads /metrics into families.
func scrape(t *testing.T, e *webtest.Env, token string) map[string]*dtoFamily {
	t.Helper()
	r := e.Do("GET", "/metrics", token, nil)
	if r.Status != 200 {
		t.Fatalf("/metrics: %d %s", r.Status, r.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, r.Body)
	}
	out := map[string]*dtoFamily{}
	for name, f := range fams {
		df := &dtoFamily{}
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			v := 0.0
			switch {
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Histogram != nil:
				v = float64(m.Histogram.GetSampleCount())
			case m.Untyped != nil:
				v = m.Untyped.GetValue()
			}
			df.samples = append(df.samples, sample{labels, v})
		}
		out[name] = df
	}
	return out
}

type sample struct {
	labels map[string]string
	value  float64
}

type dtoFamily struct{ samples []sample }

// sum adds the samples whose labels include want.
func (f *dtoFamily) sum(want map[string]string) float64 {
	if f == nil {
		return 0
	}
	total := 0.0
	for _, s := range f.samples {
		ok := true
		for k, v := range want {
			if s.labels[k] != v {
				ok = false
			}
		}
		if ok {
			total += s.value
		}
	}
	return total
}

func TestMetricsAfterASend(t *testing.T) {
	m := metrics.New(metrics.Options{})
	e := webtest.New(t, webtest.Options{Metrics: m, MetricsToken: "s3cret-scrape"})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")

	if r := e.Do("GET", "/metrics", "", nil); r.Status != 401 {
		t.Fatalf("/metrics without the token: %d", r.Status)
	}
	if r := e.Do("GET", "/metrics", "wrong", nil); r.Status != 401 {
		t.Fatalf("/metrics with a wrong token: %d", r.Status)
	}
	before := scrape(t, e, "s3cret-scrape")
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "herald_jobs",
		"herald_delivery_oldest_queued_seconds", "herald_deliveries_total", "herald_dkim_signatures_total",
		"herald_db_write_batches_total", "herald_db_write_batch_size", "herald_events_tracked_total",
		"herald_http_requests_total", "herald_http_request_duration_seconds"} {
		if before[name] == nil {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if before["herald_jobs"].sum(map[string]string{"lane": "delivery", "state": "queued"}) != 0 {
		t.Fatal("deliveries queued before any send")
	}

	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": "b"})
	e.Sink.Wait(1, 10*time.Second)
	if r := e.Public("POST", "/v1/track", map[string]any{"email": "ada@example.net", "event": "signed-up"}); r.Status != 200 {
		t.Fatalf("track: %d %s", r.Status, r.Body)
	}
	var after map[string]*dtoFamily
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		after = scrape(t, e, "s3cret-scrape")
		// The counter moves as the outcome is recorded; the job row goes
		// in that write's commit, which a scrape may see a moment later.
		// The per-domain counter moves just after the total, not with it.
		if after["herald_deliveries_total"].sum(map[string]string{"outcome": "delivered"}) == 1 &&
			after["herald_deliveries_by_domain_total"].sum(map[string]string{"outcome": "delivered"}) == 1 &&
			after["herald_jobs"].sum(map[string]string{"lane": "delivery"}) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	moved := func(name string, labels map[string]string, by float64) {
		t.Helper()
		if got := after[name].sum(labels) - before[name].sum(labels); got < by {
			t.Errorf("%s%v moved by %v, want at least %v", name, labels, got, by)
		}
	}
	moved("herald_deliveries_total", map[string]string{"outcome": "delivered"}, 1)
	moved("herald_deliveries_by_domain_total", map[string]string{"domain": "example.net", "outcome": "delivered"}, 1)
	moved("herald_dkim_signatures_total", nil, 1)
	moved("herald_events_tracked_total", nil, 1)
	moved("herald_db_write_batches_total", nil, 1)
	moved("herald_db_write_batch_size", nil, 1)
	moved("herald_http_requests_total", map[string]string{"method": "POST", "route": "/v1/send", "status": "200"}, 1)
	moved("herald_http_request_duration_seconds", map[string]string{"method": "POST", "route": "/v1/send"}, 1)
	if got := after["herald_deliveries_total"].sum(map[string]string{"outcome": "bounced"}); got != 0 {
		t.Errorf("bounced = %v", got)
	}
	if n := after["herald_jobs"].sum(map[string]string{"lane": "delivery"}); n != 0 {
		t.Errorf("herald_jobs{lane=delivery} = %v after the delivery", n)
	}
}

// TestAccessLogNamesTheRoute: one INFO line per request with the method,
// the route's pattern (never the path, which holds link tokens), status,
// duration, request id and project id.
func TestAccessLogNamesTheRoute(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	e := webtest.New(t, webtest.Options{Log: log})
	createContact(t, e, map[string]any{"email": "ada@example.net"})
	const token = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	e.Do("GET", "/t/c/"+token, "", nil)
	e.Do("GET", "/unsubscribe/"+token, "", nil)
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	const body = "Body-text-that-must-stay-out-of-logs"
	sendOK(t, e, map[string]any{"to": "ada@example.net", "from": "hello@herald.test", "subject": "s", "body": body})
	e.Sink.Wait(1, 10*time.Second)
	waitFor(t, "the delivery's log line", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(buf.String(), `"msg":"delivery attempt"`)
	})
	mu.Lock()
	text := buf.String()
	mu.Unlock()
	for _, secret := range []string{token, e.Project.Secret, body} {
		if strings.Contains(text, secret) {
			t.Fatalf("%q was logged:\n%s", secret, text)
		}
	}
	if !strings.Contains(text, `"reply":`) {
		t.Fatalf("the delivery line has no remote reply:\n%s", text)
	}
	var seen []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil || l["msg"] != "request" {
			continue
		}
		for _, k := range []string{"method", "route", "status", "took", "request_id", "project_id"} {
			if _, ok := l[k]; !ok {
				t.Fatalf("request line without %s: %s", k, line)
			}
		}
		seen = append(seen, l["method"].(string)+" "+l["route"].(string)+" "+strconv.Itoa(int(l["status"].(float64))))
		if l["route"] == "/contacts" && l["project_id"] != e.Project.ID {
			t.Fatalf("project_id: %s", line)
		}
	}
	want := []string{"POST /contacts", "GET /t/c/:token", "GET /unsubscribe/:token"}
	for _, w := range want {
		found := false
		for _, s := range seen {
			found = found || strings.HasPrefix(s, w+" ")
		}
		if !found {
			t.Fatalf("no request line for %s in %v", w, seen)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
