package web

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonCursor reads JSON in one pass, validating as it goes, for the fast
// paths of a few hot request bodies (sendBody.decodeFast). It only knows
// the plain forms: any method that meets something else (invalid UTF-8, a
// lone surrogate, an escaped key) answers false, and the caller hands the
// whole body to encoding/json, whose result and error messages then stand.
// So this cursor never has to reproduce encoding/json's repairs or errors;
// it must only never accept what encoding/json refuses, nor read a value
// differently (FuzzSendBodyFastPath compares the two).
type jsonCursor struct {
	b []byte
	i int
}

// ws skips insignificant whitespace.
func (c *jsonCursor) ws() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// peek is the next byte after whitespace, 0 at the end.
func (c *jsonCursor) peek() byte {
	c.ws()
	if c.i < len(c.b) {
		return c.b[c.i]
	}
	return 0
}

// consume reads ch after whitespace.
func (c *jsonCursor) consume(ch byte) bool {
	if c.peek() == ch {
		c.i++
		return true
	}
	return false
}

// literal reads true, false or null after whitespace. The byte after it
// is left to the caller, who must find a delimiter there.
func (c *jsonCursor) literal(word string) bool {
	c.ws()
	if bytes.HasPrefix(c.b[c.i:], []byte(word)) {
		c.i += len(word)
		return true
	}
	return false
}

// object reads an object, calling member with each key (the input's own
// bytes, valid only during the call) with the cursor on the value. A key
// with an escape gives false.
func (c *jsonCursor) object(member func(key []byte) bool) bool {
	if !c.consume('{') {
		return false
	}
	if c.consume('}') {
		return true
	}
	for {
		key, ok := c.plainKey()
		if !ok || !c.consume(':') || !member(key) {
			return false
		}
		if c.consume(',') {
			continue
		}
		return c.consume('}')
	}
}

// array reads an array, calling item with the cursor on each value.
func (c *jsonCursor) array(item func() bool) bool {
	if !c.consume('[') {
		return false
	}
	if c.consume(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if c.consume(',') {
			continue
		}
		return c.consume(']')
	}
}

// plainKey reads a string without escapes or control characters and
// returns its bytes in the input (valid UTF-8 is checked by the caller's
// exact match against its names).
func (c *jsonCursor) plainKey() ([]byte, bool) {
	if !c.consume('"') {
		return nil, false
	}
	start := c.i
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; {
		case ch == '"':
			c.i++
			return c.b[start : c.i-1], true
		case ch == '\\' || ch < 0x20:
			return nil, false
		}
		c.i++
	}
	return nil, false
}

// plainByte marks the bytes a string copies as they are: printable
// ASCII but the quote and the backslash. Read only.
var plainByte = func() (t [256]bool) {
	for ch := 0x20; ch < utf8.RuneSelf; ch++ {
		t[ch] = ch != '"' && ch != '\\'
	}
	return t
}()

// str reads a string and returns its value. Runs of plain bytes are
// copied as they are; escapes are decoded; a byte sequence that is not
// UTF-8 or an escape of a lone surrogate gives false (encoding/json would
// write U+FFFD for them).
func (c *jsonCursor) str() (string, bool) {
	if !c.consume('"') {
		return "", false
	}
	start := c.i
	for c.i < len(c.b) && plainByte[c.b[c.i]] { // the usual case: no escapes
		c.i++
	}
	if c.i < len(c.b) && c.b[c.i] == '"' {
		c.i++
		return string(c.b[start : c.i-1]), true
	}
	var out strings.Builder            // kept on the stack: its appends need no write barrier
	out.Grow(c.closingQuote() - start) // escapes only shorten
	out.Write(c.b[start:c.i])
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; {
		case plainByte[ch]:
			run := c.i + 1
			for run < len(c.b) && plainByte[c.b[run]] {
				run++
			}
			out.Write(c.b[c.i:run])
			c.i = run
		case ch == '"':
			c.i++
			return out.String(), true
		case ch == '\\':
			r, ok := c.escape()
			if !ok {
				return "", false
			}
			out.WriteRune(r)
		case ch < 0x20:
			return "", false
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out.Write(c.b[c.i : c.i+size])
			c.i += size
		}
	}
	return "", false
}

// closingQuote is where the string the cursor is in ends (len(b) if it
// does not), found at memchr's speed: a quote preceded by an odd number
// of backslashes is escaped.
func (c *jsonCursor) closingQuote() int {
	for i := c.i; ; i++ {
		q := bytes.IndexByte(c.b[i:], '"')
		if q < 0 {
			return len(c.b)
		}
		i += q
		backslashes := 0
		for j := i - 1; j >= c.i && c.b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
	}
}

// escape reads the escape at the cursor (its backslash) and returns the
// character it stands for.
func (c *jsonCursor) escape() (rune, bool) {
	if c.i+1 >= len(c.b) {
		return 0, false
	}
	ch := c.b[c.i+1]
	c.i += 2
	switch ch {
	case '"', '\\', '/':
		return rune(ch), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := c.hex4()
		if !ok || !utf16.IsSurrogate(r) {
			return r, ok
		}
		// Only a high surrogate followed by the escape of a low one makes
		// a character.
		if c.i+1 >= len(c.b) || c.b[c.i] != '\\' || c.b[c.i+1] != 'u' {
			return 0, false
		}
		c.i += 2
		low, ok := c.hex4()
		if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
			return 0, false
		}
		return r, true
	}
	return 0, false
}

// hex4 reads the four hex digits of a \u escape.
func (c *jsonCursor) hex4() (rune, bool) {
	if c.i+4 > len(c.b) {
		return 0, false
	}
	var r rune
	for _, h := range c.b[c.i : c.i+4] {
		switch {
		case '0' <= h && h <= '9':
			h -= '0'
		case 'a' <= h && h <= 'f':
			h -= 'a' - 10
		case 'A' <= h && h <= 'F':
			h -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	c.i += 4
	return r, true
}

// maxCompositeDepth bounds the nesting composite passes on. encoding/json
// counts depth from the body's top (and refuses past 10,000), a decoder
// handed a part counts from the part's: deeper values go to the whole
// body's decoding, which was going to refuse them anyway (data nests 32
// levels at most).
const maxCompositeDepth = 64

// composite returns the bytes of the object or array at the cursor
// without checking them: the caller hands them to encoding/json, which
// does. It follows only strings and brackets, to find the value's end.
func (c *jsonCursor) composite() ([]byte, bool) {
	if ch := c.peek(); ch != '{' && ch != '[' {
		return nil, false
	}
	start, depth := c.i, 0
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case '"':
			if !c.skipString() {
				return nil, false
			}
			continue
		case '{', '[':
			if depth++; depth > maxCompositeDepth {
				return nil, false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				c.i++
				return c.b[start:c.i], true
			}
		}
		c.i++
	}
	return nil, false
}

// skipString moves past the string at the cursor.
func (c *jsonCursor) skipString() bool {
	for c.i++; c.i < len(c.b); c.i++ {
		switch c.b[c.i] {
		case '\\':
			c.i++
		case '"':
			c.i++
			return true
		}
	}
	return false
}
