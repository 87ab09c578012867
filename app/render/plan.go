package render

import (
	"strconv"
	"strings"

	lrender "github.com/osteele/liquid/render"
)

// Most email templates are text with placeholders and nothing else, and
// for those Liquid's per-tag cost dominates rendering: every {{ }} is an
// expression evaluation and filter calls made through reflection. A plan
// renders such a template directly, as its text interleaved with outputs
// evaluated here, with the same result as Liquid.
//
// A plan is made from the template Liquid has parsed, so that both agree
// on where each tag begins and ends, and only when the template holds
// nothing but text and outputs of the form parseOutput accepts: no tags,
// no other filters, no whitespace control. A value of a type that isPlain
// and property do not know makes the plan give up for that render, and
// Liquid renders it instead.

// plan is a template compiled to text and outputs.
type plan struct {
	segments []segment
}

// segment is literal text or, when out is not nil, an output.
type segment struct {
	text string
	out  *output
}

// output is one {{ }}: its first operand, the fallbacks that follow "??",
// and whether the result is HTML-escaped.
type output struct {
	operands []operand
	escape   bool
	url      bool // starts a URL attribute: the scheme is checked (urlattr.go)
}

// operand is a literal or a variable, evaluated as Liquid would. ok is
// false when the value is one a plan does not handle.
type operand interface {
	value(vars map[string]any) (v any, ok bool)
}

// literal is a string literal.
type literal string

func (l literal) value(map[string]any) (any, bool) { return string(l), true }

// variable is a path such as name, data.name or address.city.
type variable struct {
	// inData is for a path that starts with "data", which binds the
	// variables themselves; the path is then the rest.
	inData bool
	path   []string
}

func newVariable(path []string) (operand, bool) {
	if path[0] != "data" {
		return variable{path: path}, true
	}
	if len(path) == 1 {
		return nil, false // {{ data }} prints all variables: left to Liquid
	}
	return variable{inData: true, path: path[1:]}, true
}

func (v variable) value(vars map[string]any) (any, bool) {
	val := lookupVar(vars, v.path[0], v.inData)
	for _, prop := range v.path[1:] {
		var ok bool
		if val, ok = property(val, prop); !ok {
			return nil, false
		}
	}
	val = normalize(val)
	return val, isPlain(val)
}

// newPlan compiles a parsed template, or returns nil if it holds anything
// but text and simple outputs.
func newPlan(root lrender.Node) *plan {
	seq, ok := root.(*lrender.SeqNode)
	if !ok {
		return nil
	}
	p := &plan{segments: make([]segment, 0, len(seq.Children))}
	for _, node := range seq.Children {
		switch node := node.(type) {
		case *lrender.TextNode:
			p.segments = append(p.segments, segment{text: node.Source})
		case *lrender.ObjectNode:
			out, ok := parseOutput(node.Args)
			if !ok {
				return nil
			}
			p.segments = append(p.segments, segment{out: &out})
		default: // tags, blocks, raw text, whitespace control
			return nil
		}
	}
	return p
}

// render renders the plan, or returns false if a value is not one it
// handles, in which case Liquid must render the template. It stops at
// MaxOutput: a value of a megabyte in a thousand placeholders is a
// gigabyte, no loop needed.
func (p *plan) render(vars map[string]any, sizeHint int) (string, bool, error) {
	var b strings.Builder
	b.Grow(sizeHint)
	for _, seg := range p.segments {
		if seg.out == nil {
			b.WriteString(seg.text)
		} else {
			v, ok := seg.out.value(vars)
			if !ok {
				return "", false, nil
			}
			if seg.out.url {
				v = safeURL(stringify(v))
			}
			writeValue(&b, v, seg.out.escape)
		}
		if b.Len() > MaxOutput {
			return "", false, errOutput
		}
	}
	return b.String(), true, nil
}

// value evaluates every operand, as Liquid evaluates every filter argument,
// and applies the fallbacks in order.
func (o *output) value(vars map[string]any) (any, bool) {
	v, ok := o.operands[0].value(vars)
	if !ok {
		return nil, false
	}
	for _, operand := range o.operands[1:] {
		alt, ok := operand.value(vars)
		if !ok {
			return nil, false
		}
		v = fallback(v, alt)
	}
	return v, true
}

// writeValue writes stringify(v), HTML-escaped if escape is set, without
// building the intermediate string for the common types. Numbers contain
// nothing to escape.
func writeValue(b *strings.Builder, v any, escape bool) {
	var num [32]byte
	switch v := v.(type) {
	case string:
		writeText(b, v, escape)
	case int:
		b.Write(strconv.AppendInt(num[:0], int64(v), 10))
	case int64:
		b.Write(strconv.AppendInt(num[:0], v, 10))
	case float64:
		b.Write(strconv.AppendFloat(num[:0], v, 'f', -1, 64))
	default:
		writeText(b, stringify(v), escape)
	}
}

func writeText(b *strings.Builder, s string, escape bool) {
	if escape {
		writeEscapedHTML(b, s)
	} else {
		b.WriteString(s)
	}
}

// writeEscapedHTML writes html.EscapeString(s) without building it.
func writeEscapedHTML(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
}
