package web

import (
	"net/http"

	"github.com/heraldmail/herald/app"
)

// idempotent runs a route under an Idempotency-Key: the key is claimed
// before the handler runs, so of two concurrent requests with one key only
// one runs, and the response status is recorded when it finishes.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, rt route) {
	key := r.Header.Get("Idempotency-Key")
	pid := projectID(r)
	if err := s.app.ClaimIdempotencyKey(r.Context(), pid, key, rt.method+" "+rt.path); err != nil {
		s.writeError(w, r, err)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			_ = s.app.FinishIdempotencyKey(r.Context(), pid, key, http.StatusInternalServerError)
			panic(p) // on to the recovery that answers 500
		}
	}()
	// The handler's writes record the key as committed (both idempotent
	// routes answer 200), so that a crash before the status below is
	// recorded can be settled at the next start.
	work := r.WithContext(app.IdempotentRequest(r.Context(), pid, key, http.StatusOK))
	if err := rt.handle(sw, work); err != nil {
		s.writeError(sw, work, err)
	}
	if err := s.app.FinishIdempotencyKey(r.Context(), pid, key, sw.status); err != nil {
		s.log.Error("record idempotency key", "request_id", reqOf(r).id, "err", err)
	}
}
