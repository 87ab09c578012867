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
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/osteele/liquid/parser"
	lrender "github.com/osteele/liquid/render"
	"github.com/osteele/liquid/tags"
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
	base    lrender.Config // Liquid's tags with Herald's bounded ones
	filters map[string]any
	slots   chan *slot // render configurations free to lend (filters.go)
	cache   *parseCache
	work    time.Duration // wall-clock bound of one render
}

// Cache bounds: how many parsed templates are kept, and how much source
// text they may add up to; how many render configurations are kept for
// reuse (more are made while more renders run at once).
const (
	cacheEntries = 1024
	cacheBytes   = 64 << 20
	keptSlots    = 64
)

// NewRenderer returns a renderer with an empty cache and the bounds of
// limits.go.
func NewRenderer() *Renderer { return NewRendererWithin(MaxWork) }

// NewRendererWithin is NewRenderer with another wall-clock bound per render
// (MaxWork when work is 0). Tests on a loaded machine use it so that the
// bound they test, not the clock, is the first one a render crosses.
func NewRendererWithin(work time.Duration) *Renderer {
	if work <= 0 {
		work = MaxWork
	}
	cfg := lrender.NewConfig()
	tags.AddStandardTags(cfg)
	addTags(&cfg)
	// Refused by preprocess already; replaced too so that no path can ever
	// read a file from the server's disk.
	cfg.AddTag("include", func(string) (func(io.Writer, lrender.Context) error, error) {
		return nil, errors.New(`the "include" tag is not supported`)
	})
	return &Renderer{base: cfg, filters: filterSet(), slots: make(chan *slot, keptSlots),
		cache: newParseCache(cacheEntries, cacheBytes), work: work}
}

// Check parses tpl and reports a *SyntaxError if it is not a valid
// template, or a *LimitError if rendering it without variables crosses a
// bound. Save paths call it so that errors surface when a template is
// written, not when it is sent.
func (r *Renderer) Check(ctx context.Context, tpl string, mode Mode) error {
	t, err := r.parse(tpl, mode)
	if err != nil {
		return err
	}
	// Liquid resolves filter names only while rendering, so a trial render
	// with no variables finds misspelt filters outside untaken branches,
	// and templates that are too big whatever the data. Other render
	// errors may depend on the data and are not the template's fault.
	_, err = r.renderLiquid(t, nil, 0, newBudgetWithin(ctx, r.work))
	var syntax *SyntaxError
	var crash *PanicError
	if _, ok := asLimit(err); ok || errors.As(err, &syntax) || errors.As(err, &crash) || ctx.Err() != nil {
		return err
	}
	return nil
}

// Render renders tpl with vars, within the bounds of limits.go; it stops
// when ctx ends. vars is not modified; json.Number values (contact data is
// decoded with UseNumber) count as numbers. A *SyntaxError means tpl does
// not parse, a *LimitError that rendering it crossed a bound; ctx's error
// that ctx ended; any other error is a failure while rendering, such as a
// filter given bad arguments.
func (r *Renderer) Render(ctx context.Context, tpl string, vars map[string]any, mode Mode) (string, error) {
	t, err := r.parse(tpl, mode)
	if err != nil {
		return "", err
	}
	// Sized for the usual case, output a little longer than the source, so
	// that a 10 KB body is not copied through every power of two.
	hint := min(len(tpl)+len(tpl)/4+64, MaxOutput)
	var out string
	if t.plan != nil {
		var ok bool
		if out, ok, err = t.plan.render(vars, hint); err != nil {
			return "", err
		}
		if !ok {
			t = &compiled{root: t.root}
		}
	}
	if t.plan == nil {
		if out, err = r.renderLiquid(t, vars, hint, newBudgetWithin(ctx, r.work)); err != nil {
			return "", err
		}
	}
	if mode == Header {
		out = flattenLines(out)
	}
	return out, nil
}

// compiled is a parsed template and, if it has one, its plan (plan.go).
type compiled struct {
	root lrender.Node
	plan *plan
}

// renderLiquid renders t within budget b, with a slot of its own. A panic
// in Liquid (it panics when a write fails, and on some bad filter
// arguments) ends the render with an error rather than the process.
func (r *Renderer) renderLiquid(t *compiled, vars map[string]any, hint int, b *budget) (out string, err error) {
	s := r.borrow(b)
	defer r.giveBack(s)
	w := &outputWriter{b: b}
	w.buf.Grow(hint)
	binds := bindings(vars)
	binds[budgetKey] = b
	defer func() {
		if p := recover(); p != nil {
			out, err = "", b.result(panicError(p))
		}
	}()
	if serr := lrender.Render(t.root, w, binds, s.cfg); serr != nil {
		return "", b.result(renderError(serr))
	}
	if b.err != nil {
		return "", b.err
	}
	return w.buf.String(), nil
}

// borrow lends a slot to a render.
func (r *Renderer) borrow(b *budget) *slot {
	var s *slot
	select {
	case s = <-r.slots:
	default:
		s = newSlot(r.base, r.filters)
	}
	s.budget = b
	return s
}

func (r *Renderer) giveBack(s *slot) {
	s.budget = nil
	select {
	case r.slots <- s:
	default: // enough are kept
	}
}

// outputWriter is the render's output, stopped at MaxOutput.
type outputWriter struct {
	buf strings.Builder
	b   *budget
}

func (w *outputWriter) Write(p []byte) (int, error) {
	if err := w.b.write(len(p)); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

func (r *Renderer) parse(tpl string, mode Mode) (t *compiled, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &PanicError{Value: p}
		}
	}()
	escape := mode == HTML
	key := cacheKey{escape: escape, src: tpl}
	if t, ok := r.cache.get(key); ok {
		return t, nil
	}
	src, err := preprocess(tpl, escape)
	if err != nil {
		return nil, err
	}
	root, serr := r.base.Compile(src, parser.SourceLoc{LineNo: 1}) // line numbers from 1
	if serr != nil {
		return nil, &SyntaxError{Message: cleanMessage(serr.Error())}
	}
	t = &compiled{root: root, plan: newPlan(root)}
	r.cache.put(key, t)
	return t, nil
}

// renderError converts a render failure; an unknown filter is a mistake in
// the template, so it is a *SyntaxError like a parse failure.
func renderError(serr lrender.Error) error {
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
	for name, renamed := range blockNames {
		if !strings.HasPrefix(name, "end") {
			msg = strings.ReplaceAll(msg, renamed, name)
		}
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
