package message

import (
	"html"
	"strings"
)

// markup handles the construct starting with "<" at src[i] and returns the
// index after it. It is a small scanner rather than a full HTML tokenizer:
// reading text out of a body needs tags, comments and raw-text elements,
// and this does it without allocating per tag.
func (t *textWriter) markup(src string, i int) int {
	if i+1 == len(src) {
		t.data("<")
		return len(src)
	}
	switch c := src[i+1]; {
	case isLetter(c):
		return t.startTag(src, i+1)
	case c == '/':
		return t.endTag(src, i+2)
	case c == '!' && strings.HasPrefix(src[i+2:], "--"):
		return after(src, i+4, "-->")
	case c == '!' || c == '?': // doctype, CDATA, processing instruction
		return afterByte(src, i+2, '>')
	}
	t.data("<") // a lone "<", as in "a < b"
	return i + 1
}

// startTag handles the start tag whose name begins at src[j] and returns
// the index after it, or after the element when its content is raw text.
func (t *textWriter) startTag(src string, j int) int {
	name, n := tagName(src[j:])
	e := classify(name)
	var want string // the one attribute the element needs
	switch e {
	case link:
		want = "href"
	case image:
		want = "alt"
	}
	tag := tagInfo{end: j + n + 1}
	if j+n == len(src) || src[j+n] != '>' { // the tag has attributes
		tag = scanAttrs(src, j+n, want)
	}
	t.open(e, &tag)
	if e == rawText && !tag.selfClosing {
		return skipRawText(src, tag.end, name)
	}
	return tag.end
}

// endTag handles the end tag whose name begins at src[j] and returns the
// index after it.
func (t *textWriter) endTag(src string, j int) int {
	name, n := tagName(src[j:])
	t.close(classify(name))
	return afterByte(src, j+n, '>')
}

// after returns the index just past the first end at or after i, or the
// end of src when it never comes.
func after(src string, i int, end string) int {
	if j := strings.Index(src[i:], end); j >= 0 {
		return i + j + len(end)
	}
	return len(src)
}

// afterByte is after for a one-byte end, which usually comes first.
func afterByte(src string, i int, end byte) int {
	if i < len(src) && src[i] == end {
		return i + 1
	}
	if j := strings.IndexByte(src[i:], end); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// tagNameEnd marks the bytes that end a tag name. Read-only.
var tagNameEnd = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '/': true, '>': true}

// tagName returns the tag name at the start of s, lower-cased, and its
// length in s. The usual all-lower-case name is returned as it is, without
// the cost of strings.ToLower's general path.
func tagName(s string) (name string, n int) {
	upper := false
	for ; n < len(s) && !tagNameEnd[s[n]]; n++ {
		upper = upper || s[n] >= 'A' && s[n] <= 'Z'
	}
	if upper {
		return strings.ToLower(s[:n]), n
	}
	return s[:n], n
}

// skipRawText returns the index after the "</tag>" that closes a raw-text
// element opened before i.
func skipRawText(src string, i int, tag string) int {
	for {
		j := strings.Index(src[i:], "</")
		if j < 0 {
			return len(src)
		}
		i += j + 2
		if len(src)-i >= len(tag) && strings.EqualFold(src[i:i+len(tag)], tag) {
			return afterByte(src, i, '>')
		}
	}
}

// tagInfo is what text extraction reads from a start tag's attributes.
type tagInfo struct {
	end         int    // the index after the tag
	value       string // the decoded value of the attribute asked for
	selfClosing bool
}

// scanAttrs reads attributes from src[j] up to the closing ">", keeping the
// value of the one named want, if any (the last one when repeated).
func scanAttrs(src string, j int, want string) tagInfo {
	var tag tagInfo
	for j < len(src) {
		switch c := src[j]; {
		case isSpace(c):
			j++
		case c == '>':
			tag.end = j + 1
			return tag
		case c == '/':
			tag.selfClosing = strings.HasPrefix(src[j:], "/>")
			j++
		default:
			var name, value string
			name, value, j = scanAttr(src, j)
			if want != "" && strings.EqualFold(name, want) {
				tag.value = html.UnescapeString(value)
			}
		}
	}
	tag.end = len(src)
	return tag
}

// scanAttr reads one name[=value] attribute starting at src[j].
func scanAttr(src string, j int) (name, value string, next int) {
	start := j
	for j++; j < len(src) && !isSpace(src[j]) && src[j] != '=' && src[j] != '>' && src[j] != '/'; j++ {
	}
	name = src[start:j]
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) || src[j] != '=' {
		return name, "", j
	}
	for j++; j < len(src) && isSpace(src[j]); j++ {
	}
	if j < len(src) && (src[j] == '"' || src[j] == '\'') {
		end := strings.IndexByte(src[j+1:], src[j])
		if end < 0 {
			return name, src[j+1:], len(src)
		}
		return name, src[j+1 : j+1+end], j + 2 + end
	}
	start = j
	for j < len(src) && !isSpace(src[j]) && src[j] != '>' {
		j++
	}
	return name, src[start:j], j
}
