// Package jsondata reads and writes contact and event data the one way
// app and its sub-packages share: numbers stay json.Number, so that big
// integers compare exactly and stored data compares equal to request input
// decoded the same way; booleans and dates are read in the forms people
// send.
package jsondata

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Decode reads a stored data object; empty input is an empty object.
func Decode(raw []byte) (map[string]any, error) {
	m := map[string]any{}
	if len(raw) == 0 {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// Encode writes a data object; an empty one is "{}".
func Encode(m map[string]any) []byte {
	if len(m) == 0 {
		return []byte("{}")
	}
	b, err := json.Marshal(m)
	if err != nil {
		// Values come from decoded JSON, so they always encode.
		panic("encode contact data: " + err.Error())
	}
	return b
}

// Bool reads a boolean, or the string "true" or "false" in any case.
func Bool(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		switch strings.ToLower(b) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// ParseDate reads the ISO 8601 forms people send: a date, a date and time
// with or without zone (UTC when absent), with or without fractions.
func ParseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// Kind names the JSON type of raw as a validation message names it
// ("object", "array", "string", ...); "undefined" when raw is empty.
func Kind(raw json.RawMessage) string {
	switch {
	case len(raw) == 0:
		return "undefined"
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == '"':
		return "string"
	case raw[0] == 't' || raw[0] == 'f':
		return "boolean"
	case raw[0] == 'n':
		return "null"
	}
	return "number"
}
