package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
)

// importContacts serves POST /contacts/import: a multipart form whose
// field "file" is the CSV.
func (s *Server) importContacts(w http.ResponseWriter, r *http.Request) error {
	file, err := formFile(r, "file", audience.MaxImportBytes)
	if err != nil {
		return err
	}
	return reply(w, http.StatusAccepted)(s.app.Audience.ImportContacts(r.Context(), projectID(r), file))
}

// formFile reads one uploaded file of at most limit bytes. The form is
// streamed part by part, so nothing spills to temporary files.
func formFile(r *http.Request, field string, limit int64) ([]byte, error) {
	mr, err := r.MultipartReader()
	if errors.Is(err, http.ErrMissingBoundary) {
		return nil, malformedForm(err)
	}
	if err != nil {
		return nil, apierr.Invalid(apierr.FieldError{Field: field, Code: "invalid_type",
			Message: "Send the CSV as multipart/form-data in the field \"" + field + "\""})
	}
	for {
		part, err := mr.NextPart()
		// Only the closing boundary is a clean end (io.EOF itself); a body
		// that stops without it is malformed (an error wrapping io.EOF).
		if err == io.EOF {
			return nil, apierr.Invalid(apierr.FieldError{Field: field, Code: "invalid_type", Message: "Required", Received: "undefined"})
		}
		if err != nil {
			return nil, malformedForm(err)
		}
		if part.FormName() != field {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return nil, malformedForm(err)
		}
		if int64(len(data)) > limit {
			return nil, &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "The file is larger than 5 MB"}
		}
		return data, nil
	}
}

// malformedForm is a multipart body that does not parse. When the body
// itself failed to arrive, writeError answers that instead.
func malformedForm(err error) error {
	return apierr.BadRequest("Malformed multipart body: %v", err)
}

// importStatus serves GET /contacts/import/{jobId}.
func (s *Server) importStatus(w http.ResponseWriter, r *http.Request) error {
	return s.jobStatus(w, r, audience.JobImportContacts)
}

// bulkStatus serves GET /contacts/bulk/{jobId}.
func (s *Server) bulkStatus(w http.ResponseWriter, r *http.Request) error {
	return s.jobStatus(w, r, audience.JobBulkContacts)
}

func (s *Server) jobStatus(w http.ResponseWriter, r *http.Request, kind string) error {
	return reply(w, http.StatusOK)(s.app.Audience.JobStatus(r.Context(), projectID(r), kind, param(r, "jobId")))
}

type bulkBody struct {
	ContactIDs []string `json:"contactIds"`
	Mode       string   `json:"mode"`
}

// bulk serves POST /contacts/bulk-subscribe, bulk-unsubscribe and
// bulk-delete: 202 with the job id.
func (s *Server) bulk(action string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b bulkBody
		if err := decodeJSON(r, &b); err != nil {
			return err
		}
		if b.Mode != "" && b.Mode != "ids" {
			return apierr.Invalid(apierr.FieldError{Field: "mode", Code: "invalid_enum_value",
				Message: "mode must be \"ids\"", Received: b.Mode})
		}
		job, err := s.app.Audience.BulkContacts(r.Context(), projectID(r), action, b.ContactIDs)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, job)
		return nil
	}
}
