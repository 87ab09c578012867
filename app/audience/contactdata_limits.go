package audience

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/heraldmail/herald/app/apierr"
)

// MaxDataDepth bounds how deeply a `data` object (contacts, track, send,
// workflow context) may nest, the data object being the first level.
// SQLite's JSON functions refuse documents nested 1,000 deep, and nothing a
// template or a condition reads needs more than a few levels.
const MaxDataDepth = 32

// checkData refuses what storage could not keep faithfully: nesting deeper
// than MaxDataDepth (reported at field) and numbers beyond float64, which
// SQLite would read as infinity (reported at the number's own path).
func CheckData(v *apierr.Validation, field string, data map[string]any) {
	if data == nil {
		return
	}
	if !walkData(v, field, data, 1) {
		v.Add(field, "too_big", "Data may nest at most "+strconv.Itoa(MaxDataDepth)+" levels deep", nil)
	}
}

// walkData checks one value at depth; it returns false when the value
// nests too deeply, and reports bad numbers as it meets them.
func walkData(v *apierr.Validation, path string, val any, depth int) bool {
	switch x := val.(type) {
	case map[string]any:
		if depth > MaxDataDepth {
			return false
		}
		for k, e := range x {
			if !plainLeaf(e) && !walkData(v, apierr.FieldPath(path, k), e, depth+1) {
				return false
			}
		}
	case []any:
		if depth > MaxDataDepth {
			return false
		}
		for i, e := range x {
			if !plainLeaf(e) && !walkData(v, apierr.FieldPath(path, i), e, depth+1) {
				return false
			}
		}
	case json.Number:
		if !numberFits(x) {
			v.Add(path, "too_big", "Numbers must be within ±1.7976931348623157e308", string(x))
		}
	}
	return true
}

// plainLeaf reports a value walkData would pass without a word: a
// string, a bool, null, a number within float64. The walk skips them
// before building their path, which every tracked event's keys would
// otherwise pay for (a string per key).
func plainLeaf(val any) bool {
	switch x := val.(type) {
	case string, bool, nil:
		return true
	case json.Number:
		return numberFits(x)
	}
	return false
}

// numberFits reports whether n reads as a finite float64.
func numberFits(n json.Number) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil || !math.IsInf(f, 0)
}
