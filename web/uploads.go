package web

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/messaging"
)

// maxUploadBody is the image and the multipart framing around it.
const maxUploadBody = messaging.MaxUploadBytes + 64<<10

// uploadImage serves POST /uploads/image: a multipart form whose field
// "file" is the image.
func (s *Server) uploadImage(w http.ResponseWriter, r *http.Request) error {
	data, declared, err := imagePart(r)
	if err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Messaging.SaveUpload(r.Context(), projectID(r), data, declared))
}

// imagePart reads the "file" part and the type the client declared for it.
func imagePart(r *http.Request) ([]byte, string, error) {
	missing := apierr.Invalid(apierr.FieldError{Field: "file", Code: "invalid_type",
		Message: "Send the image as multipart/form-data in the field \"file\"", Received: "undefined"})
	mr, err := r.MultipartReader()
	if errors.Is(err, http.ErrMissingBoundary) {
		return nil, "", malformedForm(err)
	}
	if err != nil {
		return nil, "", missing
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, "", missing
		}
		if err != nil {
			return nil, "", malformedForm(err)
		}
		if part.FormName() != "file" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, messaging.MaxUploadBytes+1))
		if err != nil {
			return nil, "", malformedForm(err)
		}
		return data, part.Header.Get("Content-Type"), nil
	}
}

// serveUpload serves GET /uploads/{name} to anyone: the type is the one
// sniffed at upload, and nosniff keeps browsers from guessing another.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) error {
	u, err := s.app.Messaging.Upload(r.Context(), param(r, "name"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", u.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(u.Data)))
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(u.Data)
	return nil
}
