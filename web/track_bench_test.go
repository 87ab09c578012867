package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/heraldmail/herald/web/webtest"
)

// The /v1/track benchmarks measure requests per second and p99 latency at
// 64 concurrent clients over loopback TCP. BenchmarkTrackBaseline is an
// empty httprouter handler that decodes the same JSON body; the README
// reports BenchmarkTrackFullStack as a ratio to it (bench/track.sh).

const trackClients = 64

func trackBody(i int64) []byte {
	b, _ := json.Marshal(map[string]any{
		"email": fmt.Sprintf("user%d@example.com", i%5000),
		"event": "page-viewed",
		"data":  map[string]any{"plan": "pro", "visits": i % 100, "path": "/pricing"},
	})
	return b
}

type trackTarget struct {
	url    string
	key    string
	client *http.Client
}

// loadTrack sends b.N requests from trackClients goroutines and reports
// req/s and p99 latency.
func loadTrack(b *testing.B, t trackTarget) {
	var next atomic.Int64
	lat := make([][]time.Duration, trackClients)
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < trackClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				t0 := time.Now()
				if !sendTrack(t, trackBody(i)) {
					failed.Add(1)
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d requests failed", n)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
}

func sendTrack(t trackTarget, body []byte) bool {
	req, _ := http.NewRequest("POST", t.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	resp, err := t.client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func benchClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = trackClients
	tr.MaxConnsPerHost = trackClients
	return &http.Client{Transport: tr}
}

// BenchmarkTrackFullStack is POST /v1/track through everything: request id,
// access log (discarded), auth, rate limit (set high enough not to
// trigger), validation, the contact upsert and the event insert, committed
// before the answer.
func BenchmarkTrackFullStack(b *testing.B) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: true})
	loadTrack(b, trackTarget{url: e.Server.URL + "/v1/track", key: e.Project.Public, client: benchClient()})
}

// BenchmarkTrackBaseline is the ceiling: an httprouter handler that only
// decodes the same body and answers.
func BenchmarkTrackBaseline(b *testing.B) {
	r := httprouter.New()
	r.POST("/v1/track", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		var body map[string]any
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true}`))
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	loadTrack(b, trackTarget{url: srv.URL + "/v1/track", key: "x", client: benchClient()})
}
