// Package render is the one template renderer of every send path (the
// send API, campaigns, workflows, test sends). Templates are Liquid
// (github.com/osteele/liquid: conditionals, loops, filters) with Herald's
// two additions, {{ name ?? "fallback" }} and {{{ raw }}}; see preprocess.go.
//
// Values are escaped at output, never in the data: in an HTML body every
// {{ }} is HTML-escaped, because contact data can be written by anyone who
// holds a project's public key. Headers (subjects) never contain CR or LF
// after rendering. A missing variable renders as nothing. The variables are
// also bound as "data", so {{ name }} and {{ data.name }} are one value.
package render

import (
	"errors"
	"html"
	"strings"

	"github.com/osteele/liquid"
	lrender "github.com/osteele/liquid/render"
)

// Mode says where the rendered text goes.
type Mode int

const (
	// HTML is an HTML body: {{ }} output is HTML-escaped, {{{ }}} is not.
	HTML Mode = iota + 1
	// Text is a plain-text body: nothing is escaped.
	Text
	// Header is a header value such as the subject: nothing is escaped and
	// every CR or LF becomes a space, so no value can start a new header.
	Header
)

// Renderer parses and renders templates. Parsed templates are cached by
// their text, since the same template is rendered once per recipient. It is
// safe for concurrent use.
type Renderer struct {
	engine *liquid.Engine
	cache  *parseCache
}

// Cache bounds: how many parsed templates are kept, and how much source
// text they may add up to.
const (
	cacheEntries = 1024
	cacheBytes   = 64 << 20
)

// NewRenderer returns a renderer with an empty cache.
func NewRenderer() *Renderer {
	e := liquid.NewEngine()
	e.RegisterFilter(filterHTML, func(v any) string { return html.EscapeString(stringify(v)) })
	e.RegisterFilter(filterText, stringify)
	e.RegisterFilter(filterFallback, fallback)
	// Refused by preprocess already; replaced too so that no path can ever
	// read a file from the server's disk.
	e.RegisterTag("include", func(lrender.Context) (string, error) {
		return "", errors.New(`the "include" tag is not supported`)
	})
	return &Renderer{engine: e, cache: newParseCache(cacheEntries, cacheBytes)}
}

// Check parses tpl and reports a *SyntaxError if it is not a valid
// template. Save paths call it so that errors surface when a template is
// written, not when it is sent.
func (r *Renderer) Check(tpl string, mode Mode) error {
	t, err := r.parse(tpl, mode)
	if err != nil {
		return err
	}
	// Liquid resolves filter names only while rendering, so a trial render
	// with no variables finds misspelt filters outside untaken branches.
	// Other render errors may depend on the data and are not syntax errors.
	_, serr := t.liquid.RenderString(nil)
	if err := renderError(serr); errors.As(err, new(*SyntaxError)) {
		return err
	}
	return nil
}

// Render renders tpl with vars. vars is not modified; json.Number values
// (contact data is decoded with UseNumber) count as numbers. A *SyntaxError
// means tpl does not parse; any other error is a failure while rendering,
// such as a filter given bad arguments.
func (r *Renderer) Render(tpl string, vars map[string]any, mode Mode) (string, error) {
	t, err := r.parse(tpl, mode)
	if err != nil {
		return "", err
	}
	// Sized for the usual case, output a little longer than the source, so
	// that a 10 KB body is not copied through every power of two.
	out, err := t.render(vars, len(tpl)+len(tpl)/4+64)
	if err != nil {
		return "", err
	}
	if mode == Header {
		out = flattenLines(out)
	}
	return out, nil
}

// compiled is a parsed template and, if it has one, its plan (plan.go).
type compiled struct {
	liquid *liquid.Template
	plan   *plan
}

func (t *compiled) render(vars map[string]any, sizeHint int) (string, error) {
	if t.plan != nil {
		if out, ok := t.plan.render(vars, sizeHint); ok {
			return out, nil
		}
	}
	var b strings.Builder
	b.Grow(sizeHint)
	if serr := t.liquid.FRender(&b, bindings(vars)); serr != nil {
		return "", renderError(serr)
	}
	return b.String(), nil
}

func (r *Renderer) parse(tpl string, mode Mode) (*compiled, error) {
	escape := mode == HTML
	key := cacheKey{escape: escape, src: tpl}
	if t, ok := r.cache.get(key); ok {
		return t, nil
	}
	src, err := preprocess(tpl, escape)
	if err != nil {
		return nil, err
	}
	lt, serr := r.engine.ParseTemplateLocation([]byte(src), "", 1) // line numbers from 1
	if serr != nil {
		return nil, &SyntaxError{Message: cleanMessage(serr.Error())}
	}
	t := &compiled{liquid: lt, plan: newPlan(lt.GetRoot())}
	r.cache.put(key, t)
	return t, nil
}

// renderError converts a render failure; an unknown filter is a mistake in
// the template, so it is a *SyntaxError like a parse failure.
func renderError(serr liquid.SourceError) error {
	if serr == nil {
		return nil
	}
	msg := cleanMessage(serr.Error())
	if strings.Contains(msg, "undefined filter") {
		return &SyntaxError{Message: msg}
	}
	return errors.New(msg)
}

// cleanMessage rewords Liquid's "Liquid error (line 2): ... in {{ tag }}"
// as "line 2: ...", dropping the quoted tag, whose rewritten text would show
// the client Herald's internal filters.
func cleanMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "Liquid error")
	if rest, ok := strings.CutPrefix(msg, " ("); ok {
		if loc, text, ok := strings.Cut(rest, "): "); ok {
			msg = loc + ": " + text
		}
	}
	msg = strings.TrimPrefix(msg, ": ")
	if i := strings.LastIndex(msg, " in {"); i > 0 {
		msg = msg[:i]
	}
	for _, f := range []string{filterHTML, filterText} {
		msg = strings.ReplaceAll(msg, " | "+f, "")
	}
	return strings.ReplaceAll(msg, "| "+filterFallback+":", "??")
}

// flattenLines replaces each line break (CRLF, CR or LF) with one space.
func flattenLines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
