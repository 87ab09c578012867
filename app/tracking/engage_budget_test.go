package tracking

import (
	"testing"
	"time"
)

// Each project has its own budget of recorded opens and clicks per
// minute; a new minute starts a new one; 0 is no limit.
func TestEngageBudgetPerProject(t *testing.T) {
	b := newEngageBudget(2)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for i, want := range []bool{true, true, false, false} {
		if got := b.allow("p1", now.Add(time.Duration(i)*time.Second)); got != want {
			t.Fatalf("p1 engagement %d: %v, want %v", i+1, got, want)
		}
	}
	if !b.allow("p2", now) {
		t.Fatal("another project's budget used up by p1")
	}
	if !b.allow("p1", now.Add(time.Minute)) {
		t.Fatal("p1 still over its budget a minute later")
	}
	off := newEngageBudget(0)
	for range 1000 {
		if !off.allow("p1", now) {
			t.Fatal("limit 0 limited")
		}
	}
}
