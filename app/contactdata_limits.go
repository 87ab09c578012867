package app

import (
	"encoding/json"
	"math"
	"strconv"
)

// MaxDataDepth bounds how deeply a `data` object (contacts, track, send,
// workflow context) may nest, the data object being the first level.
// SQLite's JSON functions refuse documents nested 1,000 deep, and nothing a
// template or a condition reads needs more than a few levels.
const MaxDataDepth = 32

// checkData refuses what storage could not keep faithfully: nesting deeper
// than MaxDataDepth (reported at field) and numbers beyond float64, which
// SQLite would read as infinity (reported at the number's own path).
func checkData(v *Validation, field string, data map[string]any) {
	if data == nil {
		return
	}
	if !walkData(v, field, data, 1) {
		v.Add(field, "too_big", "Data may nest at most "+strconv.Itoa(MaxDataDepth)+" levels deep", nil)
	}
}

// walkData checks one value at depth; it returns false when the value
// nests too deeply, and reports bad numbers as it meets them.
func walkData(v *Validation, path string, val any, depth int) bool {
	switch x := val.(type) {
	case map[string]any:
		if depth > MaxDataDepth {
			return false
		}
		for k, e := range x {
			if !walkData(v, fieldPath(path, k), e, depth+1) {
				return false
			}
		}
	case []any:
		if depth > MaxDataDepth {
			return false
		}
		for i, e := range x {
			if !walkData(v, fieldPath(path, i), e, depth+1) {
				return false
			}
		}
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err != nil && math.IsInf(f, 0) {
			v.Add(path, "too_big", "Numbers must be within ±1.7976931348623157e308", string(x))
		}
	}
	return true
}
