package message

import (
	"html"
	"slices"
	"strings"
	"sync"
)

// wrapAt is the soft wrap column of derived text. 76 keeps every line inside
// quoted-printable's limit, so wrapped text needs no soft line breaks.
const wrapAt = 76

// HTMLToText derives a readable plain-text version of an HTML body for the
// text/plain part: script, style and head are dropped, block elements and
// <br> become line breaks, list items get "- ", links read "text (url)",
// entities are decoded, whitespace is collapsed and lines are wrapped softly
// at 76 characters (a longer word, such as a URL, stays whole). Lines end in
// LF; Build turns them into CRLF.
func HTMLToText(src string) string {
	buf := textBuffers.Get().(*[]byte)
	defer putTextBuffer(buf)
	*buf = deriveText(*buf, src)
	return string(*buf)
}

// textBuffers recycles the buffers that text is derived into, as
// *[]byte. The text is needed only until it is copied or encoded, and a
// new buffer for every message was a fifth of what Build allocated.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putTextBuffer returns a buffer to textBuffers unless it is so large that
// keeping it would hold on to a rare huge body's memory.
func putTextBuffer(buf *[]byte) {
	if cap(*buf) <= 1<<20 {
		textBuffers.Put(buf)
	}
}

// deriveText returns the text HTMLToText derives from src, written over
// buf, which it grows when needed.
func deriveText(buf []byte, src string) []byte {
	// Derived text is rarely longer than its source: tags outweigh the "- "
	// and " (url)" it adds.
	buf = slices.Grow(buf[:0], len(src))
	t := textWriter{linkStart: -1, out: appendBuffer{buf: buf[:cap(buf)]}}
	for i := 0; i < len(src); {
		switch {
		case src[i] == '<':
			i = t.markup(src, i)
		case t.inHead: // its character data is not for reading
			if j := strings.IndexByte(src[i:], '<'); j >= 0 {
				i += j
			} else {
				i = len(src)
			}
		default:
			i = t.chars(src, i, true)
		}
	}
	return t.finish()
}

// data handles character data that is not source text, such as a lone "<".
func (t *textWriter) data(s string) {
	if !t.inHead {
		t.text(s)
	}
}

// entityRef returns the character reference at the start of s ("&amp;",
// "&#233;", or a lone "&"): the "&", up to 32 name characters and the ";".
func entityRef(s string) string {
	i := 1
	for i < len(s) && i <= 32 && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '#') {
		i++
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	return s[:i]
}

// entity decodes one character reference. The references email HTML uses
// most are decoded here without allocating; the rest go to html, which
// knows all of them (and the legacy forms without ";").
func entity(ref string) string {
	switch ref {
	case "&amp;":
		return "&"
	case "&lt;":
		return "<"
	case "&gt;":
		return ">"
	case "&quot;":
		return `"`
	case "&#39;", "&apos;":
		return "'"
	case "&rsquo;":
		return "\u2019"
	case "&nbsp;":
		return "\u00a0"
	case "&zwnj;":
		return "\u200c"
	case "&mdash;":
		return "\u2014"
	case "&ndash;":
		return "\u2013"
	case "&hellip;":
		return "\u2026"
	case "&copy;":
		return "\u00a9"
	}
	return html.UnescapeString(ref)
}

// element is what an element means to the reader of the text.
type element uint8

const (
	inline    element = iota // no mark of its own: b, span, font, ...
	block                    // on lines of its own: div, tr, ...
	paragraph                // with a blank line around it: p, h1, ul, ...
	head
	body
	lineBreak // br
	listItem  // li, which gets "- "
	cell      // td and th, set apart by a space
	pre       // where whitespace is kept
	link      // a, whose URL follows its text
	image     // img, whose alt text is read
	rawText   // script, style and title, whose content is not HTML
)

func classify(name string) element {
	switch name {
	case "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table",
		"blockquote", "hr":
		return paragraph
	case "div", "tr", "section", "article", "header", "footer", "nav", "main",
		"aside", "address", "figure", "figcaption", "center", "form",
		"fieldset", "dt", "dd", "caption":
		return block
	case "head":
		return head
	case "body":
		return body
	case "br":
		return lineBreak
	case "li":
		return listItem
	case "td", "th":
		return cell
	case "pre":
		return pre
	case "a":
		return link
	case "img":
		return image
	case "script", "style", "title":
		return rawText
	}
	return inline
}

// lineBreaks is how many line breaks a block puts around itself.
func (e element) lineBreaks() int {
	switch e {
	case paragraph:
		return 2
	case block:
		return 1
	}
	return 0
}

// open reacts to a start tag; self-closing tags (<br/>) open nothing.
func (t *textWriter) open(e element, tag *tagInfo) {
	switch e {
	case head:
		t.inHead = !tag.selfClosing
	case body:
		t.inHead = false
	case lineBreak:
		t.newlines++
	case listItem:
		t.breakLines(1)
		t.prefix = "- "
	case cell:
		t.space = t.space || t.out.n > 0
	case pre:
		t.breakLines(2)
		t.pre++
	case link:
		t.href, t.linkStart, t.inLink = linkTarget(tag.value), -1, true
	case image:
		if !t.inHead {
			t.text(tag.value) // the alt text, already decoded
		}
	default:
		t.breakLines(e.lineBreaks())
	}
}

// close reacts to an end tag.
func (t *textWriter) close(e element) {
	switch e {
	case head:
		t.inHead = false
	case link:
		t.endLink()
	case pre:
		t.pre = max(t.pre-1, 0)
		t.breakLines(2)
	default:
		t.breakLines(e.lineBreaks())
	}
}

// linkTarget keeps hrefs worth showing a reader: not in-page anchors or
// javascript: URLs.
func linkTarget(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") || hasPrefixLower(href, "javascript:") {
		return ""
	}
	return href
}

// sameTarget reports whether a link's text already shows its URL, ignoring
// case, the scheme and a trailing slash, so "example.com" needs no
// "(https://example.com/)". Both come without surrounding space.
func sameTarget(text, href string) bool {
	if isASCII(text) && isASCII(href) {
		// For ASCII, EqualFold is equality of the lower-case forms,
		// without making them.
		return strings.EqualFold(trimTarget(text), trimTarget(href))
	}
	return trimTarget(strings.ToLower(text)) == trimTarget(strings.ToLower(href))
}

// trimTarget removes the schemes, in any case, and a trailing slash from a
// URL.
func trimTarget(s string) string {
	s = trimScheme(s, "https://")
	s = trimScheme(s, "http://")
	s = trimScheme(s, "mailto:")
	s = trimScheme(s, "tel:")
	return strings.TrimSuffix(s, "/")
}

// trimScheme removes the lower-case scheme from the start of s, in any
// case. EqualFold matches an ASCII scheme only with as many ASCII bytes;
// the letter it starts with is compared first to skip the call.
func trimScheme(s, scheme string) string {
	if len(s) >= len(scheme) && s[0]|0x20 == scheme[0] && strings.EqualFold(s[:len(scheme)], scheme) {
		return s[len(scheme):]
	}
	return s
}

// hasPrefixLower reports whether strings.ToLower(s) starts with the
// lower-case ASCII prefix, lower-casing only when s does not start with
// ASCII (some other letters lower-case to ASCII ones, such as the Kelvin
// sign to "k").
func hasPrefixLower(s, prefix string) bool {
	if len(s) >= len(prefix) && isASCII(s[:len(prefix)]) {
		return strings.EqualFold(s[:len(prefix)], prefix)
	}
	return strings.HasPrefix(strings.ToLower(s), prefix)
}
