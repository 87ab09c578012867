package message

import (
	"html"
	"strings"
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
	// Derived text is rarely longer than its source: tags outweigh the "- "
	// and " (url)" it adds.
	t := textWriter{linkStart: -1, out: make([]byte, 0, len(src))}
	for i := 0; i < len(src); {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			t.data(src[i:])
			break
		}
		t.data(src[i : i+lt])
		i = t.markup(src, i+lt)
	}
	return t.finish()
}

// data handles character data between tags.
func (t *textWriter) data(s string) {
	if s == "" || t.inHead {
		return
	}
	for {
		amp := strings.IndexByte(s, '&')
		if amp < 0 {
			t.text(s)
			return
		}
		t.text(s[:amp])
		ref := entityRef(s[amp:])
		t.text(entity(ref))
		s = s[amp+len(ref):]
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

// startTag reacts to an opening tag; self-closing tags (<br/>) open nothing.
func (t *textWriter) startTag(tag tagInfo) {
	switch tag.name {
	case "head":
		t.inHead = !tag.selfClosing
	case "body":
		t.inHead = false
	case "br":
		t.newlines++
	case "li":
		t.breakLines(1)
		t.prefix = "- "
	case "td", "th":
		t.space = t.space || len(t.out) > 0
	case "pre":
		t.breakLines(2)
		t.pre++
	case "a":
		t.href, t.linkStart, t.inLink = linkTarget(tag.href), -1, true
	case "img":
		if !t.inHead {
			t.text(tag.alt) // already decoded
		}
	default:
		t.breakLines(blockBreaks(tag.name))
	}
}

func (t *textWriter) endTag(tag string) {
	switch tag {
	case "head":
		t.inHead = false
	case "a":
		t.endLink()
	case "pre":
		t.pre = max(t.pre-1, 0)
		t.breakLines(2)
	default:
		t.breakLines(blockBreaks(tag))
	}
}

// blockBreaks is how many line breaks a block element puts around itself:
// two (a blank line) for paragraph-like blocks, one for the others.
func blockBreaks(tag string) int {
	switch tag {
	case "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table",
		"blockquote", "hr":
		return 2
	case "div", "tr", "section", "article", "header", "footer", "nav", "main",
		"aside", "address", "figure", "figcaption", "center", "form",
		"fieldset", "dt", "dd", "caption":
		return 1
	}
	return 0
}

// linkTarget keeps hrefs worth showing a reader: not in-page anchors or
// javascript: URLs.
func linkTarget(href string) string {
	href = strings.TrimSpace(href)
	lower := strings.ToLower(href)
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(lower, "javascript:") {
		return ""
	}
	return href
}

// sameTarget reports whether a link's text already shows its URL, ignoring
// the scheme and a trailing slash, so "example.com" needs no
// "(https://example.com/)".
func sameTarget(text, href string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		for _, p := range [...]string{"https://", "http://", "mailto:", "tel:"} {
			s = strings.TrimPrefix(s, p)
		}
		return strings.TrimSuffix(s, "/")
	}
	return norm(text) == norm(href)
}
