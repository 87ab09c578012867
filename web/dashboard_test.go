package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// The dashboard shares the server with the API: / redirects to it (it was
// a JSON 404 before), its pages have a request id like every response, and
// the API's paths are untouched.
func TestDashboardBesideTheAPI(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(e.Server.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/app/" {
		t.Fatalf("GET /: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, err = http.Get(e.Server.URL + "/app/settings")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		res.Header.Get("X-Request-Id") == "" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /app/settings: %d %v", res.StatusCode, res.Header)
	}
	expectError(t, e.Secret("GET", "/apps", nil), 404, "NOT_FOUND")
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
}
