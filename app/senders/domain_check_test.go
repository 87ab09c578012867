package senders

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/storage"
)

func TestApplyCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	pending := storage.Domain{CheckStatus: map[string]string{}, UpdatedAt: t0}
	verified := storage.Domain{Verified: true, CheckStatus: map[string]string{PurposeDKIM: RecordVerified}, UpdatedAt: t0}
	cases := []struct {
		name         string
		from         storage.Domain
		dkim         outcome
		wantVerified bool
		wantFailures int
		wantStatus   string
		wantUpdated  bool
	}{
		{"pending, found", pending, outcomeFound, true, 0, RecordVerified, true},
		{"pending, missing", pending, outcomeMissing, false, 1, RecordMissing, true},
		{"pending, unknown", pending, outcomeUnknown, false, 0, "", false},
		{"verified, found", verified, outcomeFound, true, 0, RecordVerified, false},
		{"verified, first miss", verified, outcomeMissing, true, 1, RecordMissing, true},
		{"verified, unknown", verified, outcomeUnknown, true, 0, RecordVerified, false},
		{"verified, second miss", withFailures(verified, 1), outcomeMissing, false, 2, RecordMissing, true},
		{"verified after a miss, found", withFailures(verified, 1), outcomeFound, true, 0, RecordVerified, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := applyCheck(c.from, checkResult{PurposeDKIM: {outcome: c.dkim}}, now)
			if got.Verified != c.wantVerified || got.Failures != c.wantFailures || got.CheckStatus[PurposeDKIM] != c.wantStatus {
				t.Errorf("got verified=%v failures=%d status=%q", got.Verified, got.Failures, got.CheckStatus[PurposeDKIM])
			}
			if !got.LastCheckedAt.Equal(now) {
				t.Errorf("lastCheckedAt = %v", got.LastCheckedAt)
			}
			if updated := got.UpdatedAt.Equal(now); updated != c.wantUpdated {
				t.Errorf("updatedAt moved = %v, want %v", updated, c.wantUpdated)
			}
		})
	}
	if verified.CheckStatus[PurposeDKIM] != RecordVerified || len(pending.CheckStatus) != 0 {
		t.Fatal("applyCheck modified its input's status map")
	}
}

func withFailures(d storage.Domain, n int) storage.Domain {
	d.Failures = n
	return d
}

func TestRecordPrefixes(t *testing.T) {
	for v, want := range map[string]bool{
		"v=spf1 a mx ~all": true, "V=SPF1 -all": true, "v=spf1": true, " v=spf1 include:x ~all": true,
		"v=spf10 a": false, "spf1": false, "": false,
	} {
		if got := isSPF(v); got != want {
			t.Errorf("isSPF(%q) = %v", v, got)
		}
	}
	for v, want := range map[string]bool{
		"v=DMARC1; p=none": true, "v=dmarc1;p=reject": true, "v=DMARC1": true, "v=DMARC10; p=none": false, "p=none": false,
	} {
		if got := isDMARC(v); got != want {
			t.Errorf("isDMARC(%q) = %v", v, got)
		}
	}
}
