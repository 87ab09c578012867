package dashboard

import (
	"net/http"
)

// previewPath receives the template editor's HTML (a form posted into a
// sandboxed iframe) and shows it as a document of its own. The page's own
// policy would refuse an email's inline styles; the preview gets a policy
// of its own instead: no script at all, styles and images as mail has them,
// and a sandbox, so the HTML can do nothing but be looked at.
const previewPath = Prefix + "preview"

// maxPreview bounds the HTML a preview takes, as a template body is bounded.
const maxPreview = 2 << 20

const previewCSP = "default-src 'none'; style-src 'unsafe-inline' 'self'; img-src * data:; font-src *; " +
	"frame-ancestors 'self'; sandbox"

func (h *Handler) preview(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", previewCSP)
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	hd.Set("Cache-Control", "no-store")
	var html string
	switch r.Method {
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxPreview)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "Preview too large or malformed", http.StatusRequestEntityTooLarge)
			return
		}
		html = r.PostForm.Get("html")
	case http.MethodGet, http.MethodHead:
		html = `<p style="font:14px sans-serif;color:#667">The preview appears here.</p>`
	default:
		hd.Set("Allow", "GET, HEAD, POST")
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(html))
	}
}
