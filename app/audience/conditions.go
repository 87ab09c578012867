package audience

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// Condition is the condition tree of segments, campaign audiences and
// workflow CONDITION steps: groups combined by Logic (AND or OR); a group
// ANDs its filters and its nested Conditions.
type Condition struct {
	Logic  string           `json:"logic"`
	Groups []ConditionGroup `json:"groups"`
}

// ConditionGroup is one group of a tree.
type ConditionGroup struct {
	Filters    []ConditionFilter `json:"filters"`
	Conditions *Condition        `json:"conditions,omitempty"`
}

// ConditionFilter is one test on a contact, as the client wrote it.
type ConditionFilter struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    any    `json:"value,omitempty"`
	Unit     string `json:"unit,omitempty"`

	spec filterSpec // what parsing understood of it
}

// filterSpec is a checked filter, ready to compile: the storage test with
// any relative time still a window, and the segment it refers to.
type filterSpec struct {
	test    storage.Test
	window  time.Duration // > 0: the test's Value is now minus window
	segment string        // segment.<id>: resolved at compile time
	refPath string        // where the segment id was written, for its errors
}

// Limits that keep a tree's SQL within SQLite's compound and depth limits.
const (
	MaxConditionDepth   = 5   // nested conditions
	MaxConditionFilters = 100 // filters in one tree
	maxCompiledTests    = 400 // after inlining referenced segments
)

// ParseCondition decodes and checks a condition tree given as JSON,
// reporting failures at paths under path, e.g.
// "condition.groups.0.filters.1.operator". Segment references are checked
// against the database later, by CheckCondition.
func ParseCondition(raw json.RawMessage, path string) (*Condition, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, apierr.Invalid(apierr.FieldError{Field: path, Code: "invalid_type", Message: "Expected a condition object"})
	}
	p := conditionParser{}
	c := p.tree(v, path, 0)
	if len(p.v.Fields) == 0 && p.filters > MaxConditionFilters {
		p.v.Add(path, "too_big", "A condition may hold at most 100 filters", p.filters)
	}
	if err := p.v.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// IsConditionObject reports whether raw is a JSON object: DYNAMIC segments
// answer a missing or non-object condition with a plain 400.
func IsConditionObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

type conditionParser struct {
	v       apierr.Validation
	filters int
}

func (p *conditionParser) tree(v any, path string, depth int) *Condition {
	obj, ok := v.(map[string]any)
	if !ok {
		p.v.Add(path, "invalid_type", "Expected a condition object", typeName(v))
		return nil
	}
	if depth > MaxConditionDepth {
		p.v.Add(path, "too_big", "Conditions may nest at most 5 levels deep", depth)
		return nil
	}
	c := &Condition{Logic: "AND"}
	switch logic := obj["logic"].(type) {
	case nil: // AND, the spec's only example, when not given
	case string:
		if logic != "AND" && logic != "OR" {
			p.v.Add(apierr.FieldPath(path, "logic"), "invalid_enum_value", "Expected 'AND' or 'OR'", logic)
		}
		c.Logic = logic
	default:
		p.v.Add(apierr.FieldPath(path, "logic"), "invalid_type", "Expected 'AND' or 'OR'", typeName(logic))
	}
	groups, ok := obj["groups"].([]any)
	if !ok || len(groups) == 0 {
		p.v.Add(apierr.FieldPath(path, "groups"), "invalid_type", "Expected a non-empty array of groups", typeName(obj["groups"]))
		return c
	}
	for i, g := range groups {
		c.Groups = append(c.Groups, p.group(g, apierr.FieldPath(path, "groups", i), depth))
	}
	return c
}

func (p *conditionParser) group(v any, path string, depth int) ConditionGroup {
	var g ConditionGroup
	obj, ok := v.(map[string]any)
	if !ok {
		p.v.Add(path, "invalid_type", "Expected a group object", typeName(v))
		return g
	}
	filters, isArray := obj["filters"].([]any)
	if obj["filters"] != nil && !isArray {
		p.v.Add(apierr.FieldPath(path, "filters"), "invalid_type", "Expected an array of filters", typeName(obj["filters"]))
	}
	for i, f := range filters {
		p.filters++
		g.Filters = append(g.Filters, p.filter(f, apierr.FieldPath(path, "filters", i)))
	}
	if nested := obj["conditions"]; nested != nil {
		g.Conditions = p.tree(nested, apierr.FieldPath(path, "conditions"), depth+1)
	}
	if len(filters) == 0 && obj["conditions"] == nil {
		p.v.Add(apierr.FieldPath(path, "filters"), "too_small", "A group needs at least one filter or nested conditions", nil)
	}
	return g
}

func (p *conditionParser) filter(v any, path string) ConditionFilter {
	var f ConditionFilter
	obj, ok := v.(map[string]any)
	if !ok {
		p.v.Add(path, "invalid_type", "Expected a filter object", typeName(v))
		return f
	}
	field, fieldOK := p.text(obj, path, "field")
	operator, opOK := p.text(obj, path, "operator")
	f = ConditionFilter{Field: field, Operator: operator, Value: obj["value"]}
	if unit, ok := obj["unit"].(string); ok {
		f.Unit = unit
	} else if obj["unit"] != nil {
		p.v.Add(apierr.FieldPath(path, "unit"), "invalid_type", "Expected a unit string", typeName(obj["unit"]))
	}
	if !fieldOK || !opOK {
		return f
	}
	f.spec = checkFilter(&p.v, path, f)
	return f
}

// text reads a required, non-empty string member.
func (p *conditionParser) text(obj map[string]any, path, name string) (string, bool) {
	s, ok := obj[name].(string)
	if !ok || s == "" {
		p.v.Add(apierr.FieldPath(path, name), "invalid_type", "Required: a non-empty string", typeName(obj[name]))
		return "", false
	}
	return s, true
}

// typeName names a decoded JSON value's type for a validation item.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}
