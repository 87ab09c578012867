package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The click redirect's Location is http.Redirect's for the targets it
// serves (absolute http(s) URLs).
func TestRedirectLocationAsHTTPRedirects(t *testing.T) {
	for _, target := range []string{"https://example.com/post?a=1&b=2#x", "http://example.com/caf\u00e9/\u65e5?q=\u00fc",
		"https://example.com/%C3%A9", "HTTPS://Example.com/a b"} {
		w := httptest.NewRecorder()
		http.Redirect(w, httptest.NewRequest("GET", "/t/c/x", nil), target, http.StatusFound)
		if got, want := escapeNonASCII(target), w.Header().Get("Location"); got != want {
			t.Errorf("%q: %q, http.Redirect %q", target, got, want)
		}
	}
}
