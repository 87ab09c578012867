package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/heraldmail/herald/app/apierr"
)

// envelope is the error body of the spec's Errors part.
type envelope struct {
	Success   bool      `json:"success"`
	Error     errorBody `json:"error"`
	Timestamp time.Time `json:"timestamp"`
}

type errorBody struct {
	Code       string              `json:"code"`
	Message    string              `json:"message"`
	StatusCode int                 `json:"statusCode"`
	RequestID  string              `json:"requestId"`
	Errors     []apierr.FieldError `json:"errors,omitempty"`
	Details    map[string]any      `json:"details,omitempty"`
	Suggestion string              `json:"suggestion,omitempty"`
}

func statusOf(e *apierr.Error) int {
	switch e.Kind {
	case apierr.KindBadRequest:
		return http.StatusBadRequest
	case apierr.KindValidation:
		return http.StatusUnprocessableEntity
	case apierr.KindUnauthorized:
		return http.StatusUnauthorized
	case apierr.KindForbidden:
		return http.StatusForbidden
	case apierr.KindNotFound:
		return http.StatusNotFound
	case apierr.KindConflict:
		return http.StatusConflict
	case apierr.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case apierr.KindRateLimited:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// writeError is the one place errors become responses. A failure to read
// the request body is answered for what it is (see bodyFailure). An
// *app.Error is the client's to see; anything else is logged with the
// request id and answered with a generic 500, so internal causes never
// leak.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if bodyErr := reqOf(r).bodyErr; bodyErr != nil {
		status, e, ok := s.bodyFailure(w, r, bodyErr)
		if ok {
			s.writeEnvelope(w, r, status, e)
		}
		return
	}
	e, ok := apierr.AsError(err)
	if !ok {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			e, ok = &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE",
				Message: "Request body is too large"}, true
		}
	}
	if !ok && errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away and the work stopped with it: nobody is
		// waiting for an answer, and nothing went wrong on our side.
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "client went away before the answer",
			slog.String("request_id", reqOf(r).id), slog.String("err", err.Error()))
		return
	}
	if !ok {
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", reqOf(r).id), slog.String("err", err.Error()))
		e = &apierr.Error{Code: "INTERNAL_SERVER_ERROR", Message: "An unexpected error occurred"}
	}
	status := statusOf(e)
	if e.Kind == apierr.KindBadRequest && e.Code == "VALIDATION_ERROR" {
		status = http.StatusBadRequest // malformed JSON
	}
	s.writeEnvelope(w, r, status, e)
}

// writeEnvelope writes e as the spec's envelope, or as the bare {error}
// body where the spec asks for it.
func (s *Server) writeEnvelope(w http.ResponseWriter, r *http.Request, status int, e *apierr.Error) {
	if e.Plain {
		writeJSON(w, status, map[string]string{"error": e.Message})
		return
	}
	writeJSON(w, status, envelope{
		Error: errorBody{Code: e.Code, Message: e.Message, StatusCode: status, RequestID: reqOf(r).id,
			Errors: e.Fields, Details: e.Details, Suggestion: e.Suggestion},
		Timestamp: s.clock.Now().UTC().Truncate(time.Millisecond),
	})
}
