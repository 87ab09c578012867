package campaigns

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
)

// dateLayouts are the forms of scheduledFor accepted besides RFC 3339:
// those JavaScript's Date parser takes that clients commonly send. As in
// JavaScript, a date alone is UTC midnight; a date-time without an offset
// is taken as UTC too (the server has no local time worth using).
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02",
	time.RFC1123,
	time.RFC1123Z,
	time.RFC850,
	time.ANSIC,
	"Mon Jan 2 2006 15:04:05 GMT-0700", // Date.prototype.toString
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"January 2, 2006 15:04:05",
	"January 2, 2006",
	"Jan 2, 2006",
	"2 January 2006",
}

// zoneName is the " (Central European Summer Time)" that
// Date.prototype.toString appends, which the parser ignores.
var zoneName = regexp.MustCompile(`\s*\([^)]*\)\s*$`)

// ParseDate reads a date as JavaScript's Date would: a number is Unix
// milliseconds, a string one of dateLayouts. ok is false when it is not a
// date, or not one of the years 1 to 9999 that the API can write back.
func ParseDate(raw json.RawMessage) (t time.Time, ok bool) {
	raw = bytes.TrimSpace(raw)
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil && len(raw) > 0 && raw[0] != '"' {
		ms, err := n.Int64()
		return inRange(time.UnixMilli(ms).UTC(), err == nil)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, false
	}
	return ParseDateString(s)
}

// inRange keeps a parsed date only within the years 1 to 9999.
func inRange(t time.Time, ok bool) (time.Time, bool) {
	if !ok || t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, false
	}
	return t, true
}

// ParseDateString is ParseDate for text.
func ParseDateString(s string) (time.Time, bool) {
	s = zoneName.ReplaceAllString(strings.TrimSpace(s), "")
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return inRange(t.UTC(), true)
		}
	}
	return time.Time{}, false
}

// scheduledFor reads the body of POST /campaigns/{id}/send: nil means now.
// A value that is not a date, or a date in the past, is a 400.
func (s *Service) scheduledFor(raw json.RawMessage) (*time.Time, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	t, ok := ParseDate(raw)
	if !ok {
		return nil, apierr.BadRequest("scheduledFor is not a date: %s", raw)
	}
	if t.Before(s.now()) {
		return nil, apierr.BadRequest("scheduledFor %s is in the past", t.Format(time.RFC3339))
	}
	t = t.Truncate(time.Millisecond)
	return &t, nil
}
