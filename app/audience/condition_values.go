package audience

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// maxWindow bounds "within N units": a century is more than any use and
// keeps now minus the window far from overflow.
const maxWindow = 100 * 365 * 24 * time.Hour

// checkValue reads a filter's value for the field kind and operator. The
// type of what it returns picks the comparison in storage: string (text),
// int64/float64 (number), bool, time.Time (date).
func checkValue(v *apierr.Validation, path string, kind fieldKind, op storage.Op, value any) any {
	bad := func(msg string) any {
		v.Add(path, "invalid_type", msg, typeName(value))
		return nil
	}
	switch {
	case op == storage.OpExists, kind == kindEvent, kind == kindSegment:
		return nil // the operator says it all; a value is ignored
	case kind == kindEmail:
		s, ok := value.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return bad("Expected a non-empty string")
		}
		return verify.NormalizeEmail(s) // emails are stored normalised
	case kind == kindSubscribed:
		if b, ok := jsondata.Bool(value); ok {
			return b
		}
		return bad("Expected true or false")
	case op == storage.OpContains:
		if s, ok := value.(string); ok && s != "" {
			return s
		}
		return bad("Expected a non-empty string")
	case op == storage.OpEquals: // data
		if s, ok := value.(string); ok {
			return s
		}
		if b, ok := value.(bool); ok {
			return b
		}
		if n, ok := numberValue(value); ok {
			return n
		}
		return bad("Expected a string, a number or a boolean")
	}
	// An ordering on a date column or on data.
	if s, ok := value.(string); ok {
		if t, ok := jsondata.ParseDate(s); ok {
			return t
		}
	}
	if n, ok := numberValue(value); ok && kind == kindData {
		return n
	}
	if kind == kindDate {
		return bad("Expected an ISO 8601 date")
	}
	return bad("Expected a number or an ISO 8601 date")
}

// checkWindow reads "value unit" as a time span back from now.
func checkWindow(v *apierr.Validation, path string, f ConditionFilter) time.Duration {
	unit, unitOK := UnitLength(f.Unit)
	switch {
	case f.Unit == "":
		v.Add(apierr.FieldPath(path, "unit"), "invalid_type", "Required: one of seconds, minutes, hours, days", nil)
	case !unitOK:
		v.Add(apierr.FieldPath(path, "unit"), "invalid_enum_value", "Expected one of seconds, minutes, hours, days", f.Unit)
	}
	n, ok := numberValue(f.Value)
	if s, isText := f.Value.(string); isText && !ok {
		n, ok = numberValue(json.Number(strings.TrimSpace(s))) // form inputs send "7"
	}
	amount, _ := toFloat(n)
	switch {
	case f.Value == nil:
		v.Add(apierr.FieldPath(path, "value"), "invalid_type", "Required: a positive number", nil)
		return 0
	case !ok || amount <= 0:
		v.Add(apierr.FieldPath(path, "value"), "invalid_type", "Expected a positive number", f.Value)
		return 0
	case !unitOK:
		return 0
	case amount*float64(unit) > float64(maxWindow):
		v.Add(apierr.FieldPath(path, "value"), "too_big", "The span may be at most 100 years", f.Value)
		return 0
	}
	return time.Duration(amount * float64(unit)).Truncate(time.Millisecond)
}

// numberValue reads a JSON number as int64 when it is whole and fits,
// else float64, so that big integers compare exactly.
func numberValue(v any) (any, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		f, err := n.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	case float64:
		return n, true
	}
	return nil, false
}

func toFloat(n any) (float64, bool) {
	switch x := n.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// UnitLength is the length of a unit of a condition's window, and of a
// workflow DELAY's: seconds, minutes, hours, days.
func UnitLength(unit string) (time.Duration, bool) {
	switch unit {
	case "seconds":
		return time.Second, true
	case "minutes":
		return time.Minute, true
	case "hours":
		return time.Hour, true
	case "days":
		return 24 * time.Hour, true
	}
	return 0, false
}
