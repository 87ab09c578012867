package blocks

import "strings"

// Blocks keep Liquid output tags as written ("Hello {{ name ?? 'there' }}",
// href="{{unsubscribeUrl}}"): app/render runs over the rendered body at
// send time and HTML-escapes every value it puts in. What a block may hold
// is narrower than what an HTML template may, so that each block stays a
// self-contained piece of markup whatever the data:
//
//   - only {{ }} output tags: no {% %} tags (an {% if %} in one block and
//     its {% endif %} in another would cut the layout's tables apart), and
//     no {{{ }}} (raw output would let contact data, which the public key
//     writes, put markup into the email);
//   - a tag ends on its line and holds no "<", so the source stays
//     well-formed HTML that no parser reads as a tag, and a tag inside an
//     attribute holds no '"' (Liquid and "??" take single quotes too).
//
// A tag is found as Liquid's scanner finds it: from "{{" to the first "}}".

// liquidProblem says why s's Liquid is not allowed in a block, or "" when
// it is. inAttr is true for a value written into an attribute.
func liquidProblem(s string, inAttr bool) string {
	if strings.Contains(s, "{%") {
		return "Liquid tags {% %} are not supported in blocks; use {{ variable }} or the HTML editor"
	}
	if strings.Contains(s, "{{{") {
		return "Raw output {{{ }}} is not allowed in blocks; use {{ variable }}"
	}
	for i := 0; ; {
		open := strings.Index(s[i:], "{{")
		if open < 0 {
			return ""
		}
		start := i + open + 2
		n := strings.Index(s[start:], "}}")
		if n < 0 {
			return "Unclosed {{: end the variable with }}"
		}
		inner := s[start : start+n]
		switch {
		case strings.Trim(inner, " \t-") == "":
			return "Empty {{ }}: name a variable, as in {{ name }}"
		case strings.ContainsAny(inner, "<\r\n"):
			return "A {{ }} variable may not contain < or a line break"
		case inAttr && strings.Contains(inner, `"`):
			return `Use single quotes inside {{ }} here, as in {{ name ?? 'there' }}`
		}
		i = start + n + 2
	}
}

// writeText writes s, which liquidProblem accepted, as HTML: escaped
// outside its {{ }} tags (&, < and > in text; " too in an attribute
// value) and the tags as written.
func writeText(b *strings.Builder, s string, inAttr bool) {
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			escapeInto(b, s, inAttr)
			return
		}
		end := open + 2 + strings.Index(s[open+2:], "}}") + 2
		escapeInto(b, s[:open], inAttr)
		b.WriteString(s[open:end])
		s = s[end:]
	}
}

// writeInert writes s with nothing kept: every character escaped, "{" too,
// so that no Liquid tag comes out of it. Render uses it for a value that
// did not pass validation (a Document built in Go and never validated):
// it shows what was written rather than act on it.
func writeInert(b *strings.Builder, s string, inAttr bool) {
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			escapeInto(b, s, inAttr)
			return
		}
		escapeInto(b, s[:i], inAttr)
		b.WriteString("&#123;")
		s = s[i+1:]
	}
}

// escapeInto HTML-escapes s. Quotes are left alone in text (where they
// mean nothing) so that "Tom's" reads as written in the source.
func escapeInto(b *strings.Builder, s string, inAttr bool) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			if !inAttr {
				continue
			}
			esc = "&quot;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
}
