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

const benchClients = 64

func trackBody(i int64) any {
	return map[string]any{
		"email": fmt.Sprintf("user%d@example.com", i%5000),
		"event": "page-viewed",
		"data":  map[string]any{"plan": "pro", "visits": i % 100, "path": "/pricing"},
	}
}

func jsonBytes(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// loadPOST sends b.N requests from benchClients goroutines and reports
// req/s and p99 latency.
func loadPOST(b *testing.B, e *webtest.Env, path, key string, body func(int64) any) {
	loadURL(b, e.Server.URL+path, key, body)
}

func loadURL(b *testing.B, url, key string, body func(int64) any) {
	client := benchClient()
	var next, failed atomic.Int64
	lat := make([][]time.Duration, benchClients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	for c := 0; c < benchClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				payload := jsonBytes(body(i))
				t0 := time.Now()
				if doPOST(client, url, key, payload) != http.StatusOK {
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
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/req")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-MB")
}

func doPOST(client *http.Client, url, key string, body []byte) int {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func benchClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = benchClients
	tr.MaxConnsPerHost = benchClients
	return &http.Client{Transport: tr}
}

// BenchmarkTrackFullStack is POST /v1/track through everything: request id,
// access log (discarded), auth, rate limit (set high enough not to
// trigger), validation, the contact upsert and the event insert, committed
// before the answer.
func BenchmarkTrackFullStack(b *testing.B) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: true})
	loadPOST(b, e, "/v1/track", e.Project.Public, trackBody)
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
	loadURL(b, srv.URL+"/v1/track", "x", trackBody)
}
