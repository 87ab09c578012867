package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// stringify is how a value appears in rendered text. Liquid would print
// maps in Go syntax; here they are JSON, lists are joined with ", ", and
// numbers never use exponent notation.
func stringify(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case time.Time:
		return v.Format(time.RFC3339)
	case map[string]any:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k == reflect.Slice || k == reflect.Array {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = stringify(rv.Index(i).Interface())
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// fallback is the filter behind `??`: the fallback replaces a value that is
// missing, null or the empty string. false and 0 are values, and stay.
func fallback(v, alt any) any {
	if v == nil || v == "" {
		return alt
	}
	return v
}

// bindings copies vars for Liquid and binds "data" to the variables
// themselves, so that {{ name }} and {{ data.name }} are the same value (a
// contact's own "data" key is then {{ data.data }}).
func bindings(vars map[string]any) map[string]any {
	out := normalizeMap(vars)
	out["data"] = maps.Clone(out)
	return out
}

// normalizeMap copies m, turning json.Number into int or float64 so that
// comparisons such as {% if age > 30 %} work on numbers. An integer is an
// int, not an int64: Liquid takes only int where it wants an integer, as
// in a range (1..n) or a loop's limit.
func normalizeMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = normalize(v)
	}
	return out
}

func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		// A fraction or exponent cannot parse as an integer; not trying
		// spares the error Int64 would allocate, on every render.
		if !strings.ContainsAny(string(v), ".eE") {
			if n, err := strconv.Atoi(string(v)); err == nil {
				return n
			}
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v.String()
	case map[string]any:
		return normalizeMap(v)
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = normalize(item)
		}
		return out
	}
	return v
}

// lookupVar is the variable name as bound by bindings, before
// normalization; with inData, it is data.name instead.
func lookupVar(vars map[string]any, name string, inData bool) any {
	v, ok := vars[name]
	if !ok && inData && name == "size" {
		return len(vars) // Liquid's size of a map without a "size" key
	}
	return v
}

// property is v.prop as Liquid evaluates it on normalize(v), for the types
// bindings produce; ok is false for any other type. v may be unnormalized,
// and so may the result: normalize commutes with taking a map's item or a
// list's first or last.
func property(v any, prop string) (any, bool) {
	switch v := v.(type) {
	case nil, bool, int, int64, float64:
		return nil, true
	case json.Number:
		return property(normalize(v), prop)
	case string:
		if prop == "size" {
			return len(v), true
		}
		return nil, true
	case map[string]any:
		if item, ok := v[prop]; ok {
			return item, true
		}
		if prop == "size" {
			return len(v), true
		}
		return nil, true
	case []any:
		return listProperty(v, prop), true
	}
	return nil, false
}

func listProperty(l []any, prop string) any {
	switch {
	case prop == "size":
		return len(l)
	case prop == "first" && len(l) > 0:
		return l[0]
	case prop == "last" && len(l) > 0:
		return l[len(l)-1]
	}
	return nil
}

// isPlain reports whether v, normalized, is of a type a plan renders
// exactly as Liquid does: one that Liquid passes to the filters unchanged.
func isPlain(v any) bool {
	switch v.(type) {
	case nil, string, bool, int, int64, float64, map[string]any, []any:
		return true
	}
	return false
}
