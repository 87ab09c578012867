// Package dashboard serves Herald's web interface at /app/: a no-build
// client on ES modules (Preact with htm, uPlot for charts) embedded in the
// binary. The pages call the same API integrators use, with the session
// cookie and X-Project-Id; this package serves files only, with a strict
// Content-Security-Policy, precompressed with gzip.
package dashboard

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static third_party/*.js third_party/*.css
var files embed.FS

// Prefix is where the dashboard lives; everything under it that is not an
// asset is the single page, so links in platform mail such as
// /app/verify-email?token=… open the page that handles them.
const Prefix = "/app/"

// assetsPrefix is where the embedded files are served from.
const assetsPrefix = Prefix + "assets/"

// csp lets the page load only its own scripts, styles and data; frames
// only the template preview of this origin; the page itself is not framed.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-ancestors 'none'"

// asset is one embedded file, ready to serve.
type asset struct {
	body, gz []byte
	ctype    string
	etag     string
}

// Handler serves / (a redirect), /app/ and its assets, and the template
// preview.
type Handler struct {
	assets map[string]*asset // by URL path
	index  *asset
}

// New reads and compresses the embedded files once.
func New() *Handler {
	h := &Handler{assets: map[string]*asset{}}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		a := newAsset(p, body)
		if p == "static/index.html" {
			h.index = a
			return nil
		}
		h.assets[assetsPrefix+strings.TrimPrefix(p, "static/")] = a
		return nil
	})
	return h
}

func newAsset(name string, body []byte) *asset {
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) { // the platform's mime table may lack these
	case ".js":
		ctype = "text/javascript; charset=utf-8"
	case ".css":
		ctype = "text/css; charset=utf-8"
	case ".html":
		ctype = "text/html; charset=utf-8"
	case ".svg":
		ctype = "image/svg+xml"
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	sum := sha256.Sum256(body)
	return &asset{body: body, gz: buf.Bytes(), ctype: ctype,
		etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
}

// Owns reports whether a path is the dashboard's.
func Owns(p string) bool {
	return p == "/" || p == "/app" || strings.HasPrefix(p, Prefix)
}

// ServeHTTP serves one request to a path Owns.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header())
	p := r.URL.Path
	if p == previewPath {
		h.preview(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case p == "/" || p == "/app":
		http.Redirect(w, r, Prefix, http.StatusFound)
	case strings.HasPrefix(p, assetsPrefix):
		a, ok := h.assets[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serve(w, r, a)
	default:
		// The single page: its router shows the page the path names.
		w.Header().Set("Cache-Control", "no-cache")
		serve(w, r, h.index)
	}
}

func securityHeaders(hd http.Header) {
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}

// serve writes an asset, gzip-compressed when the client takes it, and
// answers a matching If-None-Match with 304.
func serve(w http.ResponseWriter, r *http.Request, a *asset) {
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("ETag", a.etag)
	hd.Add("Vary", "Accept-Encoding")
	if hd.Get("Cache-Control") == "" {
		hd.Set("Cache-Control", "no-cache") // revalidate: a new binary may bring new files
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if acceptsGzip(r) {
		hd.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	hd.Set("Content-Length", itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
