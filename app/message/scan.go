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
	rest := src[i+1:]
	switch {
	case strings.HasPrefix(rest, "!--"):
		return after(src, i+4, "-->")
	case rest == "":
		t.data("<")
		return len(src)
	case rest[0] == '!' || rest[0] == '?': // doctype, CDATA, processing instruction
		return after(src, i, ">")
	case rest[0] == '/':
		name := tagName(rest[1:])
		t.endTag(lowerTag(name))
		return after(src, i, ">")
	case isLetter(rest[0]):
		name := tagName(rest)
		tag := tagInfo{name: lowerTag(name)}
		end := tag.scanAttrs(src, i+1+len(name))
		t.startTag(tag)
		if rawText(tag.name) && !tag.selfClosing {
			return skipRawText(src, end, tag.name)
		}
		return end
	}
	t.data("<") // a lone "<", as in "a < b"
	return i + 1
}

// after returns the index just past the first end at or after i, or the
// end of src when it never comes.
func after(src string, i int, end string) int {
	if j := strings.Index(src[i:], end); j >= 0 {
		return i + j + len(end)
	}
	return len(src)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// tagName returns the tag name at the start of s.
func tagName(s string) string {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) || s[i] == '/' || s[i] == '>' {
			return s[:i]
		}
	}
	return s
}

// lowerTag lower-cases a tag name, returning it untouched (and without the
// cost of strings.ToLower's general path) in the usual all-lower case.
func lowerTag(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}

// rawText elements hold text that is not HTML; their content is dropped.
func rawText(tag string) bool {
	return tag == "script" || tag == "style" || tag == "title"
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
			return after(src, i, ">")
		}
	}
}

// tagInfo is a start tag with the attributes text extraction uses.
type tagInfo struct {
	name, href, alt string
	selfClosing     bool
}

// scanAttrs reads attributes from src[j] up to the closing ">", keeping
// href and alt, and returns the index after the tag.
func (tag *tagInfo) scanAttrs(src string, j int) int {
	for j < len(src) {
		switch c := src[j]; {
		case isSpace(c):
			j++
		case c == '>':
			return j + 1
		case c == '/':
			tag.selfClosing = strings.HasPrefix(src[j:], "/>")
			j++
		default:
			var name, value string
			name, value, j = scanAttr(src, j)
			switch {
			case strings.EqualFold(name, "href"):
				tag.href = html.UnescapeString(value)
			case strings.EqualFold(name, "alt"):
				tag.alt = html.UnescapeString(value)
			}
		}
	}
	return len(src)
}

// scanAttr reads one name[=value] attribute starting at src[j].
func scanAttr(src string, j int) (name, value string, next int) {
	start := j
	for j++; j < len(src) && !isSpace(src[j]) && !strings.ContainsRune("=>/", rune(src[j])); j++ {
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
