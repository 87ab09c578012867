package render

import (
	"regexp"
	"strings"
)

// Herald's template syntax is Liquid plus two forms integrators know from
// Plunk-style templates:
//
//	{{ name ?? "fallback" }}   the fallback when name is missing or empty
//	{{{ name }}}               the value inserted without HTML escaping
//
// Liquid v1.6 has neither, nor automatic escaping, so the source is
// rewritten into plain Liquid before it is parsed: every output tag gets a
// final filter that turns the value into text (escaping it in HTML mode),
// "??" becomes a filter, and {{{ }}} becomes an output tag whose final
// filter does not escape. The tokens are found with the same pattern
// Liquid's own scanner uses, so that the rewrite and the parser always agree
// on where a tag begins and ends.

// The rewrite also renames the for, tablerow and capture blocks to
// Herald's bounded versions (tags.go).

// Filters the rewrite appends; registered in filters.go.
const (
	filterHTML     = "herald_html"
	filterText     = "herald_text"
	filterFallback = "herald_fallback"
)

// tokenPattern matches, in this order of preference at one position:
// {{{ expr }}}, an output tag {{ expr }} (Liquid's pattern) and a block tag
// {% name args %} (Liquid's pattern).
var tokenPattern = regexp.MustCompile(`\{\{\{\s*(.+?)\s*\}\}\}` +
	`|\{\{-?\s*(.+?)\s*-?\}\}` +
	`|\{%-?\s*(\w+)(?:\s+((?:[^%]|%[^}])+?))?\s*-?%\}`)

// SyntaxError is a template that cannot be parsed.
type SyntaxError struct{ Message string }

func (e *SyntaxError) Error() string { return e.Message }

// preprocess rewrites Herald syntax into Liquid. escape chooses the final
// filter of {{ }} tags.
func preprocess(src string, escape bool) (string, error) {
	final := filterText
	if escape {
		final = filterHTML
	}
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	last, inRaw := 0, false
	var page htmlState // where in the HTML each output tag lands (urlattr.go)
	read := 0
	for _, m := range tokenPattern.FindAllStringSubmatchIndex(src, -1) {
		start, end := m[0], m[1]
		tok := src[start:end]
		if escape {
			page.advance(src[read:start])
			read = end
		}
		if m[6] >= 0 { // a block tag
			name := src[m[6]:m[7]]
			if err := checkTag(name); err != nil && !inRaw {
				return "", err
			}
			if renamed, ok := blockNames[name]; ok && !inRaw {
				b.WriteString(src[last:m[6]])
				b.WriteString(renamed)
				last = m[7]
			}
			inRaw = name == "raw" || (inRaw && name != "endraw")
			continue // copied as is with the text around it
		}
		if inRaw {
			continue
		}
		b.WriteString(src[last:start])
		url := escape && page.inURLStart()
		page.output()
		if m[2] >= 0 { // {{{ expr }}}
			f := filterText
			if url {
				f = filterURLText
			}
			writeOutput(&b, "{{ ", src[m[2]:m[3]], f, " }}")
		} else {
			open, closing := "{{ ", " }}"
			if tok[2] == '-' {
				open = "{{- "
			}
			if tok[len(tok)-3] == '-' {
				closing = " -}}"
			}
			f := final
			if url {
				f = filterURLHTML
			}
			writeOutput(&b, open, src[m[4]:m[5]], f, closing)
		}
		last = end
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// checkTag refuses the tags that reach outside the template: include reads
// files from the server's disk.
func checkTag(name string) error {
	if name == "include" {
		return &SyntaxError{Message: `the "include" tag is not supported`}
	}
	return nil
}

func writeOutput(b *strings.Builder, open, expr, final, closing string) {
	b.WriteString(open)
	b.WriteString(rewriteFallback(expr))
	b.WriteString(" | ")
	b.WriteString(final)
	b.WriteString(closing)
}

// rewriteFallback turns each "??" outside a string literal into the
// fallback filter: `name ?? "there"` becomes `name | herald_fallback: "there"`.
// Liquid strings have no escapes, so a quote always ends the literal it
// opened.
func rewriteFallback(expr string) string {
	if !strings.Contains(expr, "??") {
		return expr
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '?' && i+1 < len(expr) && expr[i+1] == '?':
			b.WriteString("| " + filterFallback + ":")
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
