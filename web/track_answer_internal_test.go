package web

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/audience"
)

// writeTracked must write what the JSON encoder writes, headers included,
// for every contact id, event id and time, escaped or not.
func TestWriteTrackedMatchesTheEncoder(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	times := []time.Time{
		time.Date(2026, 11, 26, 14, 3, 4, 0, time.UTC),
		time.Date(2026, 11, 26, 14, 3, 4, 123000000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC).In(paris),
		time.Date(2026, 1, 2, 3, 4, 5, 7, time.FixedZone("", -3*3600-1800)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	ids := []string{"0193f0a4-5b6c-7d8e-9f01-23456789abcd", "", `a"b`, `a\b`, "<a>&", "é", "tab\there", "\x7f"}
	for _, ts := range times {
		for _, contact := range ids {
			for _, event := range ids[:3] {
				res := audience.TrackResult{Contact: contact, Event: event, Timestamp: ts}
				fast, slow := httptest.NewRecorder(), httptest.NewRecorder()
				writeTracked(fast, res)
				writeData(slow, 200, res)
				if fast.Body.String() != slow.Body.String() || fast.Code != slow.Code ||
					fast.Header().Get("Content-Type") != slow.Header().Get("Content-Type") {
					t.Errorf("%+v: wrote %d %q %q, the encoder %d %q %q", res, fast.Code, fast.Header().Get("Content-Type"),
						fast.Body.String(), slow.Code, slow.Header().Get("Content-Type"), slow.Body.String())
				}
			}
		}
	}
}
