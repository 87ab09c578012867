package web

import (
	"net/http"
	"time"

	"github.com/heraldmail/herald/app/audience"
)

// writeTracked writes /v1/track's answer, {"success":true,"data":{contact,
// event, timestamp}}, byte for byte what writeData would write, without
// the JSON encoder: its reflection and buffers cost a tracked event as
// much as the rest of the handler outside the write (docs/performance.md,
// "The tracked event"). A value the encoder would escape falls back to it.
func writeTracked(w http.ResponseWriter, res audience.TrackResult) {
	if !plainJSON(res.Contact) || !plainJSON(res.Event) || res.Timestamp.Year() < 0 || res.Timestamp.Year() > 9999 {
		writeData(w, http.StatusOK, res)
		return
	}
	b := make([]byte, 0, 160)
	b = append(b, `{"success":true,"data":{"contact":"`...)
	b = append(b, res.Contact...)
	b = append(b, `","event":"`...)
	b = append(b, res.Event...)
	b = append(b, `","timestamp":"`...)
	b = res.Timestamp.AppendFormat(b, time.RFC3339Nano)
	b = append(b, "\"}}\n"...)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// plainJSON reports whether s is its own JSON string body under
// encoding/json's default escaping: printable ASCII other than the quote,
// the backslash and the HTML characters < > &.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
