package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

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
	loadURLTimed(b, url, key, body, nil)
}

// loadURLTimed is loadURL that also reports the server's p99 (srv-p99-ms)
// and the p99 at half load (p99-half-ms) when clock, which wraps the
// server's handler, is not nil (runLoad).
func loadURLTimed(b *testing.B, url, key string, body func(int64) any, clock *serverClock) {
	client := benchClient()
	runLoad(b, clock, func(i int64) bool {
		return doPOST(client, url, key, jsonBytes(body(i))) == http.StatusOK
	})
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
	clock := &serverClock{}
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: true, Wrap: clock.wrap})
	loadURLTimed(b, e.Server.URL+"/v1/track", e.Project.Public, trackBody, clock)
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
	clock := &serverClock{}
	srv := httptest.NewServer(clock.wrap(r))
	defer srv.Close()
	loadURLTimed(b, srv.URL+"/v1/track", "x", trackBody, clock)
}
