package web

import "encoding/json"

// Free-form values (a contact's or an event's data) read by jsonCursor as
// encoding/json reads them into an `any` with UseNumber: objects as
// map[string]any (a repeated key: the last one wins), arrays as []any
// (never nil), strings, bools, nil, and numbers as json.Number holding the
// literal's own bytes. As everywhere in jsonCursor, what it does not know
// gives false and the whole body goes to encoding/json.

// freeObject reads null (a nil map) or an object.
func (c *jsonCursor) freeObject(dst *map[string]any) bool {
	switch c.peek() {
	case 'n':
		*dst = nil
		return c.literal("null")
	case '{':
		m, ok := c.freeMap(1)
		*dst = m
		return ok
	}
	return false
}

// freeValue reads any value at the given depth of nesting.
func (c *jsonCursor) freeValue(depth int) (any, bool) {
	switch ch := c.peek(); {
	case ch == '"':
		return c.str()
	case ch == '{':
		m, ok := c.freeMap(depth + 1)
		return m, ok
	case ch == '[':
		a, ok := c.freeArray(depth + 1)
		return a, ok
	case ch == 't':
		return true, c.literal("true")
	case ch == 'f':
		return false, c.literal("false")
	case ch == 'n':
		return nil, c.literal("null")
	case ch == '-' || '0' <= ch && ch <= '9':
		return c.number()
	}
	return nil, false
}

// freeMap reads an object. Keys are read as strings are, escapes
// included; deeper than maxCompositeDepth is left to encoding/json.
func (c *jsonCursor) freeMap(depth int) (map[string]any, bool) {
	if depth > maxCompositeDepth || !c.consume('{') {
		return nil, false
	}
	m := map[string]any{}
	if c.consume('}') {
		return m, true
	}
	for {
		if c.peek() != '"' {
			return nil, false
		}
		key, ok := c.str()
		if !ok || !c.consume(':') {
			return nil, false
		}
		v, ok := c.freeValue(depth)
		if !ok {
			return nil, false
		}
		m[key] = v
		if c.consume(',') {
			continue
		}
		return m, c.consume('}')
	}
}

// freeArray reads an array.
func (c *jsonCursor) freeArray(depth int) ([]any, bool) {
	if depth > maxCompositeDepth {
		return nil, false
	}
	a := []any{}
	ok := c.array(func() bool {
		v, ok := c.freeValue(depth)
		a = append(a, v)
		return ok
	})
	return a, ok
}

// number reads a number by JSON's grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; the byte after it is
// left to the caller, who must find a delimiter there.
func (c *jsonCursor) number() (json.Number, bool) {
	start, i := c.i, c.i
	if i < len(c.b) && c.b[i] == '-' {
		i++
	}
	switch {
	case i < len(c.b) && c.b[i] == '0':
		i++
	case i < len(c.b) && '1' <= c.b[i] && c.b[i] <= '9':
		i = c.digits(i)
	default:
		return "", false
	}
	if i < len(c.b) && c.b[i] == '.' {
		if i = c.digits(i + 1); c.b[i-1] == '.' {
			return "", false
		}
	}
	if i < len(c.b) && (c.b[i] == 'e' || c.b[i] == 'E') {
		i++
		if i < len(c.b) && (c.b[i] == '+' || c.b[i] == '-') {
			i++
		}
		after := c.digits(i)
		if after == i {
			return "", false
		}
		i = after
	}
	c.i = i
	return json.Number(c.b[start:i]), true
}

// digits returns the index past the run of decimal digits starting at i.
func (c *jsonCursor) digits(i int) int {
	for i < len(c.b) && '0' <= c.b[i] && c.b[i] <= '9' {
		i++
	}
	return i
}
