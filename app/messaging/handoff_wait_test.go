package messaging

import (
	"context"
	"testing"
	"time"
)

// A fan-out waits while the handoff holds too much, and goes on as soon as
// delivery takes enough, or when its wait runs out.
func TestHandoffWaitBelow(t *testing.T) {
	h := NewHandoff(1 << 20)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	h.Put("a", make([]byte, 600), now)
	h.Put("b", make([]byte, 600), now)
	done := make(chan struct{})
	go func() {
		h.WaitBelow(context.Background(), 700, nil)
		close(done)
	}()
	h.Take("zzz") // taking nothing wakes nobody
	select {
	case <-done:
		t.Fatal("returned while the handoff held 1200 bytes")
	case <-time.After(20 * time.Millisecond):
	}
	h.Take("a")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after the handoff fell to 600 bytes")
	}

	giveUp := make(chan time.Time, 1)
	giveUp <- now
	h.WaitBelow(context.Background(), 100, giveUp) // returns: the wait ran out
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.WaitBelow(ctx, 100, nil) // returns: the context ended
}
