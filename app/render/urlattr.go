package render

import (
	"strings"

	"golang.org/x/net/html"
)

// A value from contact data that starts a URL attribute (href, src, ...)
// could carry a javascript: or data: URL into a message. As html/template
// does, such a value keeps only the schemes mail may link to (http, https,
// mailto, tel; a URL without a scheme is relative and stays) and becomes
// "#" otherwise. preprocess finds these places with htmlState and gives
// their output tags a final filter that checks the scheme.

// Final filters of output tags at the start of a URL attribute.
const (
	filterURLHTML = "herald_url_html" // checked and HTML-escaped ({{ }})
	filterURLText = "herald_url_text" // checked only ({{{ }}})
)

// urlAttrs are the attributes whose value is a URL that a reader or mail
// client may follow or load.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "background": true,
	"poster": true, "cite": true, "longdesc": true, "usemap": true, "xlink:href": true,
	"data": true, "codebase": true, "manifest": true, "profile": true,
	"dynsrc": true, "lowsrc": true,
}

// safeURL returns u when its scheme is one mail may link to, else "#".
// Character references are decoded as an HTML parser decodes them:
// x/net/html follows the HTML standard, where "&#1javascript:" is U+0001
// then "javascript:" (the standard library's html leaves it as written).
func safeURL(u string) string {
	if schemeAllowed(html.UnescapeString(u)) { // {{{ }}} output reaches the reader unescaped
		return u
	}
	return "#"
}

func schemeAllowed(u string) bool {
	// Browsers ignore leading and embedded whitespace and control
	// characters in a scheme ("java\tscript:"), so they are ignored here.
	var scheme strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c <= ' ':
			continue
		case c == ':':
			switch strings.ToLower(scheme.String()) {
			case "http", "https", "mailto", "tel":
				return true
			}
			return false
		case c == '/' || c == '?' || c == '#':
			return true // no scheme: a relative URL
		}
		scheme.WriteByte(c)
	}
	return true
}

// htmlState follows an HTML source, skipping Liquid tags, far enough to
// tell whether a position starts the value of a URL attribute.
type htmlState struct {
	state    int
	quote    byte
	attr     strings.Builder // the attribute being read, lower-cased
	literal  bool            // the value so far has text of its own, fixing the scheme
	urlValue bool            // the attribute is a URL one
}

const (
	sText = iota
	sComment
	sTagName
	sBeforeAttr
	sAttrName
	sAfterAttrName
	sBeforeValue
	sValueQuoted
	sValueUnquoted
)

// inURLStart reports whether an output tag here can decide a URL's
// scheme: inside a URL attribute's value, with no literal text before it
// that already fixed the scheme.
func (h *htmlState) inURLStart() bool {
	switch h.state {
	case sBeforeValue, sValueQuoted, sValueUnquoted:
		return h.urlValue && !h.literal
	}
	return false
}

// output notes that an output tag was written: it is part of the value.
func (h *htmlState) output() {
	if h.state == sBeforeValue {
		h.state, h.literal = sValueUnquoted, false
	}
}

// advance reads literal source text.
func (h *htmlState) advance(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch h.state {
		case sText:
			if c == '<' {
				if strings.HasPrefix(s[i:], "<!--") {
					h.state = sComment
					i += 3
				} else if i+1 < len(s) && isASCIILetter(s[i+1]) {
					h.state = sTagName
				}
			}
		case sComment:
			if strings.HasPrefix(s[i:], "-->") {
				h.state = sText
				i += 2
			}
		case sTagName:
			switch {
			case c == '>':
				h.state = sText
			case isSpace(c) || c == '/':
				h.state = sBeforeAttr
			}
		case sBeforeAttr, sAfterAttrName:
			switch {
			case c == '>':
				h.state = sText
			case isSpace(c) || c == '/':
			case c == '=' && h.state == sAfterAttrName:
				h.beginValue()
			default:
				h.attr.Reset()
				h.attr.WriteByte(lower(c))
				h.state = sAttrName
			}
		case sAttrName:
			switch {
			case c == '>':
				h.state = sText
			case c == '=':
				h.beginValue()
			case isSpace(c):
				h.state = sAfterAttrName
			default:
				h.attr.WriteByte(lower(c))
			}
		case sBeforeValue:
			switch {
			case isSpace(c):
			case c == '"' || c == '\'':
				h.state, h.quote = sValueQuoted, c
			case c == '>':
				h.state = sText
			default:
				h.state, h.literal = sValueUnquoted, true
			}
		case sValueQuoted:
			if c == h.quote {
				h.state = sBeforeAttr
			} else if !isSpace(c) {
				h.literal = true
			}
		case sValueUnquoted:
			switch {
			case isSpace(c):
				h.state = sBeforeAttr
			case c == '>':
				h.state = sText
			default:
				h.literal = true
			}
		}
	}
}

func (h *htmlState) beginValue() {
	h.state, h.literal, h.urlValue = sBeforeValue, false, urlAttrs[h.attr.String()]
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isSpace(c byte) bool       { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
