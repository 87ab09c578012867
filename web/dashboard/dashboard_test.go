package dashboard

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
)

func do(t *testing.T, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRootRedirectsToApp(t *testing.T) {
	h := New()
	for _, p := range []string{"/", "/app"} {
		w := do(t, h, "GET", p)
		if w.Code != http.StatusFound || w.Header().Get("Location") != "/app/" {
			t.Fatalf("GET %s: %d %q", p, w.Code, w.Header().Get("Location"))
		}
	}
}

func TestIndexHasStrictCSP(t *testing.T) {
	h := New()
	for _, p := range []string{"/app/", "/app/verify-email?token=abc", "/app/reset-password?token=x", "/app/contacts/123"} {
		w := do(t, h, "GET", p)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s", p, w.Code, w.Header().Get("Content-Type"))
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
			t.Fatalf("CSP %q", csp)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(w.Body.String(), `type="module"`) {
			t.Fatalf("headers %v", w.Header())
		}
	}
}

func TestAssetsGzipETagAnd404(t *testing.T) {
	h := New()
	w := do(t, h, "GET", "/app/assets/js/main.js", "Accept-Encoding", "gzip, br")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") {
		t.Fatalf("main.js: %d %v", w.Code, w.Header())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !strings.Contains(string(body), "import") {
		t.Fatalf("not the module: %.100s", body)
	}
	etag := w.Header().Get("ETag")
	if w := do(t, h, "GET", "/app/assets/js/main.js", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", w.Code)
	}
	if w := do(t, h, "GET", "/app/assets/js/main.js"); w.Header().Get("Content-Encoding") != "" || !strings.Contains(w.Body.String(), "import") {
		t.Fatalf("identity: %v", w.Header())
	}
	if w := do(t, h, "GET", "/app/assets/nope.js"); w.Code != 404 {
		t.Fatalf("missing asset: %d", w.Code)
	}
	if w := do(t, h, "POST", "/app/"); w.Code != 405 {
		t.Fatalf("POST /app/: %d", w.Code)
	}
	if w := do(t, h, "GET", "/app/assets/third_party/uplot.module.js"); w.Code != 200 {
		t.Fatalf("vendored uPlot: %d", w.Code)
	}
}

func TestPreviewIsSandboxed(t *testing.T) {
	h := New()
	r := httptest.NewRequest("POST", "/app/preview", strings.NewReader("html=%3Cp+style%3D%22color%3Ared%22%3EHi%3C%2Fp%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	csp := w.Header().Get("Content-Security-Policy")
	if w.Code != 200 || !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Fatalf("preview: %d %q", w.Code, csp)
	}
	if !strings.Contains(w.Body.String(), `<p style="color:red">Hi</p>`) {
		t.Fatalf("body %q", w.Body.String())
	}
	big := httptest.NewRequest("POST", "/app/preview", strings.NewReader("html="+strings.Repeat("a", maxPreview+10)))
	big.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, big)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("big preview: %d", w.Code)
	}
}

var (
	staticImport = regexp.MustCompile(`(?m)^\s*import\s[^'"]*['"]([^'"]+)['"]|from\s*['"]([^'"]+)['"]`)
	htmlRef      = regexp.MustCompile(`(?:src|href)="(/app/assets/[^"]+)"`)
)

// FirstLoadBytes is what a browser fetches for the first load of /app/
// (gzip): the page, what it links and every module imported statically.
// Modules imported with import() (the chart library) come later.
func firstLoadBytes(t *testing.T, h *Handler) (total int, files []string) {
	idx := do(t, h, "GET", "/app/", "Accept-Encoding", "gzip")
	total = idx.Body.Len()
	seen := map[string]bool{}
	var queue []string
	for _, m := range htmlRef.FindAllStringSubmatch(string(h.index.body), -1) {
		queue = append(queue, m[1])
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		a, ok := h.assets[p]
		if !ok {
			t.Fatalf("first load refers to %s, which is not embedded", p)
		}
		total += len(a.gz)
		files = append(files, p)
		if strings.HasSuffix(p, ".js") {
			for _, m := range staticImport.FindAllStringSubmatch(string(a.body), -1) {
				ref := m[1] + m[2]
				if strings.HasPrefix(ref, ".") {
					queue = append(queue, path.Join(path.Dir(p), ref))
				}
			}
		}
	}
	return total, files
}

func TestFirstLoadUnder200KB(t *testing.T) {
	total, files := firstLoadBytes(t, New())
	t.Logf("first load of /app/: %d bytes gzip in %d files", total, len(files)+1)
	if total >= 200*1024 {
		t.Fatalf("first load is %d bytes", total)
	}
}
