package app_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// This file is the differential test's oracle: a plain evaluation of a
// condition tree over contacts held in memory, written from the rules in
// docs/decisions.md and sharing no code with the engine.

type modelContact struct {
	id, email        string
	subscribed       bool
	created, updated time.Time
	data             map[string]any // decoded with UseNumber
	events           []modelEvent
	deleted          bool
	staticMember     bool
}

type modelEvent struct {
	name string
	at   time.Time
}

// model evaluates trees at a fixed now.
type model struct {
	now      time.Time
	contacts []*modelContact
	segments map[string]map[string]any // dynamic segment id -> its tree
	static   string                    // id of the static segment
}

func (m *model) matches(c *modelContact, tree map[string]any) bool {
	or := tree["logic"] == "OR"
	for _, g := range tree["groups"].([]any) {
		if m.group(c, g.(map[string]any)) == or {
			return or
		}
	}
	return !or
}

func (m *model) group(c *modelContact, g map[string]any) bool {
	filters, _ := g["filters"].([]any)
	for _, f := range filters {
		if !m.filter(c, f.(map[string]any)) {
			return false
		}
	}
	if nested, ok := g["conditions"].(map[string]any); ok {
		return m.matches(c, nested)
	}
	return true
}

func (m *model) filter(c *modelContact, f map[string]any) bool {
	field, op := f["field"].(string), f["operator"].(string)
	negated := strings.HasPrefix(op, "not")
	positive := op
	if negated {
		positive = strings.ToLower(op[3:4]) + op[4:]
	}
	return m.positive(c, field, positive, f) != negated
}

func (m *model) positive(c *modelContact, field, op string, f map[string]any) bool {
	value := f["value"]
	switch {
	case field == "email":
		v := strings.ToLower(strings.TrimSpace(value.(string)))
		if op == "equals" {
			return c.email == v
		}
		return strings.Contains(c.email, v)
	case field == "subscribed":
		want, _ := value.(bool)
		if s, ok := value.(string); ok {
			want = strings.EqualFold(s, "true")
		}
		return c.subscribed == want
	case field == "createdAt" || field == "updatedAt":
		t := c.created
		if field == "updatedAt" {
			t = c.updated
		}
		return compareTime(t.UnixMilli(), op, m.bound(f).UnixMilli())
	case strings.HasPrefix(field, "data."):
		return m.data(c, field[5:], op, f)
	case strings.HasPrefix(field, "event.") || strings.HasPrefix(field, "email."):
		name := strings.TrimPrefix(field, "event.")
		return m.event(c, name, op, f)
	case strings.HasPrefix(field, "segment"):
		id := strings.TrimPrefix(strings.TrimPrefix(field, "segment"), ".")
		if id == "" {
			id = value.(string)
		}
		if id == m.static {
			return c.staticMember
		}
		if tree, ok := m.segments[id]; ok {
			return m.matches(c, tree)
		}
		return false
	}
	panic("unknown field " + field)
}

// bound is the filter's instant: now minus the span, or the date given.
func (m *model) bound(f map[string]any) time.Time {
	if unit, ok := f["unit"].(string); ok {
		amount, _ := f["value"].(json.Number).Float64()
		length := map[string]time.Duration{"seconds": time.Second, "minutes": time.Minute, "hours": time.Hour, "days": 24 * time.Hour}[unit]
		now := m.now.UTC().Truncate(time.Millisecond)
		return now.Add(-time.Duration(amount * float64(length)).Truncate(time.Millisecond))
	}
	t, _ := parseModelDate(f["value"].(string))
	return t
}

func compareTime(t int64, op string, bound int64) bool {
	switch op {
	case "within", "greaterThanOrEqual":
		return t >= bound
	case "olderThan", "lessThan":
		return t < bound
	case "greaterThan":
		return t > bound
	case "lessThanOrEqual":
		return t <= bound
	}
	panic(op)
}

func (m *model) event(c *modelContact, name, op string, f map[string]any) bool {
	var last time.Time
	found, recent := false, false
	for _, ev := range c.events {
		if ev.name != name {
			continue
		}
		found = true
		if ev.at.After(last) {
			last = ev.at
		}
		if op != "triggered" && !ev.at.Before(m.bound(f)) {
			recent = true
		}
	}
	switch op {
	case "triggered":
		return found
	case "triggeredWithin":
		return recent
	case "triggeredOlderThan":
		return found && last.Before(m.bound(f))
	}
	panic(op)
}

// dataRows are a value's readings: texts (booleans read as true/false),
// numbers (numbers, and texts holding a JSON number), and whether the key
// is there at all.
type dataRows struct {
	texts   []string
	numbers []float64
}

func rowsOf(v any, top bool) dataRows {
	var r dataRows
	switch x := v.(type) {
	case string:
		r.texts = append(r.texts, x)
		if n, ok := jsonNumberText(x); ok && top {
			r.numbers = append(r.numbers, n)
		}
	case json.Number:
		n, _ := x.Float64()
		r.numbers = append(r.numbers, n)
	case bool:
		if x {
			r.texts = append(r.texts, "true")
		} else {
			r.texts = append(r.texts, "false")
		}
	case []any:
		if top {
			for _, el := range x {
				er := rowsOf(el, false)
				r.texts = append(r.texts, er.texts...)
				r.numbers = append(r.numbers, er.numbers...)
			}
		}
	}
	return r
}

func jsonNumberText(s string) (float64, bool) {
	if !json.Valid([]byte(s)) {
		return 0, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (m *model) data(c *modelContact, key, op string, f map[string]any) bool {
	v, present := c.data[key]
	if op == "exists" || !present {
		return present
	}
	rows := rowsOf(v, true)
	value := f["value"]
	switch op {
	case "equals":
		return equalsRow(rows, value)
	case "contains":
		for _, t := range rows.texts {
			if strings.Contains(asciiLower(t), asciiLower(value.(string))) {
				return true
			}
		}
		return false
	}
	if n, ok := value.(json.Number); ok && f["unit"] == nil {
		want, _ := n.Float64()
		for _, x := range rows.numbers {
			if compareFloat(x, op, want) {
				return true
			}
		}
		return false
	}
	bound := m.bound(f).UnixMilli()
	for _, t := range rows.texts {
		if d, ok := parseModelDate(t); ok && compareTime(d.UnixMilli(), op, bound) {
			return true
		}
	}
	return false
}

func equalsRow(rows dataRows, value any) bool {
	switch v := value.(type) {
	case json.Number:
		want, _ := v.Float64()
		for _, x := range rows.numbers {
			if x == want {
				return true
			}
		}
		return false
	case bool:
		value = "false"
		if v {
			value = "true"
		}
	}
	for _, t := range rows.texts {
		if asciiLower(t) == asciiLower(value.(string)) {
			return true
		}
	}
	return false
}

func compareFloat(x float64, op string, want float64) bool {
	switch op {
	case "greaterThan":
		return x > want
	case "greaterThanOrEqual":
		return x >= want
	case "lessThan":
		return x < want
	case "lessThanOrEqual":
		return x <= want
	}
	panic(op)
}

// asciiLower folds A-Z only, as SQLite's NOCASE and lower() do.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// parseModelDate reads the two date forms the generator writes.
func parseModelDate(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func decodeJSON(s string) map[string]any {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}
