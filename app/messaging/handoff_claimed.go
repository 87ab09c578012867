package messaging

import "github.com/heraldmail/herald/storage"

// The write that claims a delivery marks its email SENDING with an UPDATE
// that returns the row (storage.Tx.StartAttempt), and hands the row to the
// attempt here, once that write has committed: the attempt then need not
// read the email again, a query on the reader pool that was a tenth of a
// queued delivery's CPU. Like the bytes, it is only a shortcut: an attempt
// that finds nothing reads the row.

// maxClaimed bounds the rows held. Every claimed attempt runs and takes its
// row at once, so it is only a guard.
const maxClaimed = 4096

// putClaimed keeps the row of an email whose attempt was claimed.
func (h *Handoff) PutClaimed(e storage.Email) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.claimed) >= maxClaimed {
		clear(h.claimed)
	}
	h.claimed[e.ID] = e
}

// takeClaimed returns and forgets the row kept by putClaimed.
func (h *Handoff) takeClaimed(id string) (storage.Email, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.claimed[id]
	if ok {
		delete(h.claimed, id)
	}
	return e, ok
}
