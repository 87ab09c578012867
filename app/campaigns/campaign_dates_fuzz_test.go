package campaigns

import (
	"encoding/json"
	"testing"
)

// FuzzParseDate checks the scheduledFor parser on any input: it never
// panics, and a date it accepts is one the API can write back (a year of
// four digits) in UTC. Seeds: testdata/fuzz/FuzzParseDate.
func FuzzParseDate(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, ok := ParseDate(raw)
		if !ok {
			return
		}
		if d.Location().String() != "UTC" {
			t.Fatalf("%q: not UTC: %v", raw, d)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("%q: accepted %v, which cannot be written back: %v", raw, d, err)
		}
	})
}
