package web

import (
	"net/http"
	"strings"

	"github.com/heraldmail/herald/app"
)

// transparentGIF is a 1x1 transparent GIF, the open pixel's answer.
const transparentGIF = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

// openPixel serves GET /t/o/{token}: records email.open and answers the
// pixel, uncached so that every open is seen.
func (s *Server) openPixel(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.RecordOpen(r.Context(), strings.TrimSuffix(param(r, "token"), ".gif")); err != nil {
		if e, ok := app.AsError(err); ok && e.Kind == app.KindNotFound {
			// A token of a deleted email, or none of ours: nothing is
			// recorded, and the reader's mail client still gets an image.
			w.Header().Set("Content-Type", "image/gif")
			w.Header().Set("Cache-Control", "no-store, max-age=0")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(transparentGIF))
			return nil
		}
		return err
	}
	w.Header().Set("Content-Type", "image/gif")
	w.Header().Set("Cache-Control", "no-store, max-age=0")
	_, _ = w.Write([]byte(transparentGIF))
	return nil
}

// clickRedirect serves GET /t/c/{token}: records email.click and
// redirects to the link that was in the message.
func (s *Server) clickRedirect(w http.ResponseWriter, r *http.Request) error {
	target, err := s.app.RecordClick(r.Context(), param(r, "token"))
	if err != nil {
		return s.pageError(w, r, err) // people click these: a page, not JSON
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
	return nil
}
