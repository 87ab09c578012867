package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
)

// transparentGIF is a 1x1 transparent GIF, the open pixel's answer.
const transparentGIF = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

// The pixel's and the redirect's header values, shared by every answer
// (net/http only reads them; Header.Add would copy), so that an answer
// allocates none.
var (
	gifType      = []string{"image/gif"}
	pixelNoStore = []string{"no-store, max-age=0"}
	noStore      = []string{"no-store"}
	pixelBytes   = []byte(transparentGIF)
)

// openPixel serves GET /t/o/{token}: records email.open and answers the
// pixel, uncached so that every open is seen.
func (s *Server) openPixel(w http.ResponseWriter, r *http.Request) error {
	status := http.StatusOK
	if err := s.app.Tracking.RecordOpen(r.Context(), strings.TrimSuffix(param(r, "token"), ".gif")); err != nil {
		e, ok := apierr.AsError(err)
		if !ok || e.Kind != apierr.KindNotFound {
			return err
		}
		// A token of a deleted email, or none of ours: nothing is
		// recorded, and the reader's mail client still gets an image.
		status = http.StatusNotFound
	}
	h := w.Header()
	h["Content-Type"], h["Cache-Control"] = gifType, pixelNoStore
	w.WriteHeader(status)
	_, _ = w.Write(pixelBytes)
	return nil
}

// clickRedirect serves GET /t/c/{token}: records email.click and
// redirects to the link that was in the message. The target is an
// absolute http(s) URL (instrument keeps no other), so the redirect is
// its Location alone: http.Redirect would parse it and write a body no
// browser shows.
func (s *Server) clickRedirect(w http.ResponseWriter, r *http.Request) error {
	target, err := s.app.Tracking.RecordClick(r.Context(), param(r, "token"))
	if err != nil {
		return s.pageError(w, r, err) // people click these: a page, not JSON
	}
	h := w.Header()
	h["Location"], h["Cache-Control"] = []string{escapeNonASCII(target)}, noStore
	w.WriteHeader(http.StatusFound)
	return nil
}

// escapeNonASCII percent-encodes the bytes of s outside ASCII, as
// http.Redirect does for a Location.
func escapeNonASCII(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+16)
	for j := 0; j < len(s); j++ {
		if c := s[j]; c >= utf8.RuneSelf {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
