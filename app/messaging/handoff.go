package messaging

import (
	"context"
	"sync"
	"time"

	"github.com/heraldmail/herald/storage"
)

// handoff passes the signed bytes of a message just queued straight to its
// first delivery attempt, so that the attempt need not read them back from
// the database: a 30 KB message is several overflow pages, read through the
// WAL. It is only a shortcut. The bytes are committed with the email, and an
// attempt that finds nothing here (after a restart, on a retry, or when the
// handoff was full) reads them from there.
type Handoff struct {
	mu    sync.Mutex
	max   int // bytes held at most
	size  int
	byID  map[string]handed
	order []string // ids in the order they were put, for expiry; may name taken ones

	// taken is closed when an entry leaves; a waiter makes it (waitBelow).
	taken chan struct{}

	// claimed holds the rows of emails whose attempt was just claimed
	// (handoff_claimed.go).
	claimed map[string]storage.Email
}

type handed struct {
	raw []byte
	at  time.Time
}

// HandoffBytes bounds the memory the handoff holds: about 2,000 messages
// of 30 KB, more than the delivery lane takes at once.
const HandoffBytes = 64 << 20

// handoffTTL drops messages whose attempt never came (a cancelled
// campaign's), so that they do not hold room for ever.
const handoffTTL = 10 * time.Minute

func NewHandoff(max int) *Handoff {
	return &Handoff{max: max, byID: map[string]handed{}, claimed: map[string]storage.Email{}}
}

// put offers a queued message's bytes. A full handoff keeps what it holds:
// deliveries run roughly in the order messages were queued, so the oldest
// are the next ones taken.
func (h *Handoff) Put(id string, raw []byte, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.size+len(raw) > h.max {
		h.expire(now)
		if h.size+len(raw) > h.max {
			return
		}
	}
	h.byID[id] = handed{raw: raw, at: now}
	h.size += len(raw)
	h.order = append(h.order, id)
	if len(h.order) > 2*len(h.byID)+64 {
		h.compact()
	}
}

// take returns and forgets a message's bytes, if the handoff has them.
func (h *Handoff) Take(id string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.byID[id]
	if ok {
		delete(h.byID, id)
		h.size -= len(e.raw)
		h.wake()
	}
	return e.raw, ok
}

// wake tells a waiter that the handoff holds less.
func (h *Handoff) wake() {
	if h.taken != nil {
		close(h.taken)
		h.taken = nil
	}
}

// expire drops the entries put more than handoffTTL ago.
func (h *Handoff) expire(now time.Time) {
	n := 0
	for ; n < len(h.order); n++ {
		e, ok := h.byID[h.order[n]]
		if ok && now.Sub(e.at) < handoffTTL {
			break
		}
		if ok {
			delete(h.byID, h.order[n])
			h.size -= len(e.raw)
			h.wake()
		}
	}
	h.order = h.order[n:]
}

// compact forgets the ids of entries already taken.
func (h *Handoff) compact() {
	kept := make([]string, 0, len(h.byID))
	for _, id := range h.order {
		if _, ok := h.byID[id]; ok {
			kept = append(kept, id)
		}
	}
	h.order = kept
}

// Held is how many bytes the handoff holds.
func (h *Handoff) Held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.size
}

// WaitBelow returns once the handoff holds at most limit bytes, ctx ends,
// or giveUp delivers.
func (h *Handoff) WaitBelow(ctx context.Context, limit int, giveUp <-chan time.Time) {
	for {
		h.mu.Lock()
		if h.size <= limit {
			h.mu.Unlock()
			return
		}
		if h.taken == nil {
			h.taken = make(chan struct{})
		}
		taken := h.taken
		h.mu.Unlock()
		select {
		case <-taken:
		case <-ctx.Done():
			return
		case <-giveUp:
			return
		}
	}
}
