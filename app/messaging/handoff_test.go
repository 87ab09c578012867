package messaging

import (
	"fmt"
	"testing"
	"time"
)

func TestHandoffTakesOnce(t *testing.T) {
	h := NewHandoff(1 << 20)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	h.Put("a", []byte("message a"), now)
	if raw, ok := h.Take("a"); !ok || string(raw) != "message a" {
		t.Fatalf("take a: %q %v", raw, ok)
	}
	if _, ok := h.Take("a"); ok {
		t.Fatal("taken twice")
	}
	if _, ok := h.Take("never put"); ok {
		t.Fatal("took what was never put")
	}
	if h.size != 0 {
		t.Fatalf("size %d after everything was taken", h.size)
	}
}

// A full handoff keeps its oldest entries, the next ones delivered, and
// makes room only when entries expire.
func TestHandoffBoundedAndExpiring(t *testing.T) {
	h := NewHandoff(100)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		h.Put(fmt.Sprint(i), make([]byte, 30), now)
	}
	if h.size != 90 || len(h.byID) != 3 {
		t.Fatalf("size %d with %d entries, want 90 with 3", h.size, len(h.byID))
	}
	if _, ok := h.Take("3"); ok {
		t.Fatal("an entry over the bound was kept")
	}
	h.Put("late", make([]byte, 30), now.Add(handoffTTL))
	if _, ok := h.Take("0"); ok {
		t.Fatal("an expired entry was kept")
	}
	if _, ok := h.Take("late"); !ok {
		t.Fatal("expiry made no room")
	}
}

// Ids of taken entries do not pile up in the expiry order.
func TestHandoffOrderStaysSmall(t *testing.T) {
	h := NewHandoff(1 << 20)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	h.Put("stuck", []byte("x"), now) // never taken: a cancelled campaign's
	for i := range 10000 {
		id := fmt.Sprint(i)
		h.Put(id, []byte("x"), now)
		h.Take(id)
	}
	if len(h.order) > 200 {
		t.Fatalf("order holds %d ids for %d entries", len(h.order), len(h.byID))
	}
}
