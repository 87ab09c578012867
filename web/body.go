package web

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/heraldmail/herald/app/apierr"
)

// requestBody is every request body as handlers read it. It tells the
// failures of the transport apart from those of the content: a body over
// the route's limit, a client that went away, a body that did not arrive
// within the body timeout. Handlers pass read errors on as they come;
// writeError looks here first, so a truncated upload is never mistaken for
// a malformed one (400) or an internal failure (500).
type requestBody struct {
	body io.ReadCloser
	req  *request
	rc   *http.ResponseController // clears the read deadline once the body is in
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		b.arrived()
	case b.req.bodyErr == nil:
		b.req.bodyErr = err
	}
	return n, err
}

func (b *requestBody) Close() error { return b.body.Close() }

// arrived lifts the body deadline: the server's read that watches for the
// client going away must not time out while the handler works.
func (b *requestBody) arrived() {
	if b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Time{})
		b.rc = nil
	}
}

// wrapBody limits the body to the route's size and, when a body is sent,
// to the server's body timeout: the whole body must arrive within it.
func (s *Server) wrapBody(w http.ResponseWriter, r *http.Request, limit int64) {
	body := &requestBody{body: http.MaxBytesReader(w, r.Body, limit), req: reqOf(r)}
	if s.bodyTimeout > 0 && r.Body != nil && r.Body != http.NoBody {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(s.bodyTimeout)) == nil {
			body.rc = rc
		}
	}
	r.Body = body
}

// bodyFailure turns a failure to read the body into its answer: 413 over
// the limit, 408 too slow (and the connection closed: the rest of the
// body is still on its way), and none at all for a client that went away
// (ok false): no answer is owed to it, and it is no error of ours.
func (s *Server) bodyFailure(w http.ResponseWriter, r *http.Request, err error) (status int, e *apierr.Error, ok bool) {
	var tooLarge *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE",
			Message: "Request body is too large"}, true
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		w.Header().Set("Connection", "close")
		return http.StatusRequestTimeout, &apierr.Error{Code: "REQUEST_TIMEOUT",
			Message:    "The request body did not arrive within " + s.bodyTimeout.String(),
			Suggestion: "Send the whole body without pausing"}, true
	}
	s.log.LogAttrs(r.Context(), slog.LevelDebug, "client went away before its request body arrived",
		slog.String("request_id", reqOf(r).id), slog.String("err", err.Error()))
	return 0, nil, false
}
