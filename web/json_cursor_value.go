package web

import (
	"encoding/json"
	"unicode/utf8"
)

// anyValue reads any JSON value as encoding/json decodes it into an `any`
// with UseNumber: objects as map[string]any (a repeated key: the last
// wins), arrays as []any (empty ones not nil), numbers as json.Number of
// their text. depth counts the objects and arrays around the value; past
// maxCompositeDepth, or at a key with an escape or invalid UTF-8, it gives
// false and the caller falls back to encoding/json.
func (c *jsonCursor) anyValue(depth int) (any, bool) {
	switch ch := c.peek(); {
	case ch == '"':
		return c.str()
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't' || ch == 'f':
		return ch == 't', c.literal("true") || c.literal("false")
	case ch == 'n':
		return nil, c.literal("null")
	case ch == '{' && depth < maxCompositeDepth:
		return c.anyObject(depth + 1)
	case ch == '[' && depth < maxCompositeDepth:
		list := []any{}
		ok := c.array(func() bool {
			v, ok := c.anyValue(depth + 1)
			list = append(list, v)
			return ok
		})
		return list, ok
	}
	return nil, false
}

// anyObject reads an object of any values.
func (c *jsonCursor) anyObject(depth int) (map[string]any, bool) {
	m := map[string]any{}
	ok := c.object(func(key []byte) bool {
		if !utf8.Valid(key) {
			return false
		}
		v, ok := c.anyValue(depth)
		m[string(key)] = v
		return ok
	})
	return m, ok
}

// number reads a number in JSON's grammar and returns its text; what
// follows it is left to the caller, who must find a delimiter there.
func (c *jsonCursor) number() (json.Number, bool) {
	start := c.i
	if c.i < len(c.b) && c.b[c.i] == '-' {
		c.i++
	}
	switch {
	case c.i < len(c.b) && c.b[c.i] == '0':
		c.i++
	case !c.digits():
		return "", false
	}
	if c.i < len(c.b) && c.b[c.i] == '.' {
		c.i++
		if !c.digits() {
			return "", false
		}
	}
	if c.i < len(c.b) && (c.b[c.i] == 'e' || c.b[c.i] == 'E') {
		c.i++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '-') {
			c.i++
		}
		if !c.digits() {
			return "", false
		}
	}
	return json.Number(c.b[start:c.i]), true
}

// digits reads one or more decimal digits.
func (c *jsonCursor) digits() bool {
	start := c.i
	for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
		c.i++
	}
	return c.i > start
}
