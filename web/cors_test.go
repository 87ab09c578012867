package web_test

import (
	"net/http"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

func TestPublicTrackAnswersCORS(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	req, _ := http.NewRequest("OPTIONS", e.Server.URL+"/v1/track", nil)
	req.Header.Set("Origin", "https://shop.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		resp.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	r := e.Public("POST", "/v1/track", map[string]any{"email": "a@example.com", "event": "x"}, "Origin", "https://shop.example")
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
		r.Header.Get("Access-Control-Expose-Headers") != "X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After" {
		t.Fatalf("track: %d %v", r.Status, r.Header)
	}
	// Secret-key routes never invite browsers.
	if h := e.Secret("GET", "/contacts", nil, "Origin", "https://shop.example").Header; h.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("contacts sent CORS headers: %v", h)
	}
}
