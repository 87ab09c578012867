package tracking

import (
	"strconv"
	"testing"
	"time"
)

func TestEngagementRepeatsBounded(t *testing.T) {
	r := newEngagementRepeats()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < maxRepeatKeys+1000; i++ {
		if !r.claim(strconv.Itoa(i), now) {
			t.Fatalf("new key %d refused", i)
		}
	}
	if len(r.last) > maxRepeatKeys {
		t.Fatalf("%d keys, bound %d", len(r.last), maxRepeatKeys)
	}
	if r.claim("5", now.Add(time.Second)) {
		t.Fatal("a repeat within the minute was claimed")
	}
	later := now.Add(repeatWindow)
	if !r.claim("new", later) || len(r.last) != 1 {
		t.Fatalf("ended windows not swept: %d keys", len(r.last))
	}
}
