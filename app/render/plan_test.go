package render

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// renderWithLiquid renders t the way Render did before plans existed.
func renderWithLiquid(t *compiled, vars map[string]any, mode Mode) (string, error) {
	out, err := testRenderer.renderLiquid(t, vars, 0, newBudget(context.Background()))
	if err != nil {
		return "", err
	}
	if mode == Header {
		return flattenLines(out), nil
	}
	return out, nil
}

// testRenderer renders templates that tests parsed with another renderer:
// parsed templates do not belong to the renderer that parsed them.
var testRenderer = NewRenderer()

func TestPlanIsMadeForSimpleTemplatesOnly(t *testing.T) {
	r := NewRenderer()
	for _, c := range []struct {
		tpl      string
		wantPlan bool
	}{
		{"plain text", true},
		{"", true},
		{"Hi {{name}} {{ data.name }} {{{ raw }}}", true},
		{`{{ name ?? "there" }} {{ a ?? b ?? 'c' }} {{name??"x"}}`, true},
		{"{{ address.city }} {{ tags.first }} {{ data.data.x }} {{ data.size }}", true},
		{"{{ first-name }} {{ ok? }} {{ _x }}", true},
		{"a {% comment %}{% if x %}{% endcomment %} b", true}, // Liquid drops comments when parsing
		{"{{ name | upcase }}", false},
		{"{{ data }}", false},
		{"{{ 1 }} {{ nil }} {{ true }}", false},
		{`{{ "abc".size }}`, false},
		{"{{ tags[0] }}", false},
		{"{{ data .name }}", false},
		{"{{ name | herald_html }}", false},
		{"{% if vip %}x{% endif %}", false},
		{"{% assign x = 1 %}", false},
		{"{% raw %}{{ x }}{% endraw %}", false},
		{"a {{- name }}", false},
		{"{{ name -}} b", false},
	} {
		for _, mode := range []Mode{HTML, Text, Header} {
			tc, err := r.parse(c.tpl, mode)
			if err != nil {
				t.Fatalf("parse(%q): %v", c.tpl, err)
			}
			if got := tc.plan != nil; got != c.wantPlan {
				t.Errorf("parse(%q, %d): has plan %v, want %v", c.tpl, mode, got, c.wantPlan)
			}
		}
	}
}

func TestParseOutput(t *testing.T) {
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		{"name | herald_html", true},
		{"name|herald_text", true},
		{"data.a.b-c? | herald_html ", true},
		{`a | herald_fallback: "x | y" | herald_fallback:b | herald_html`, true},
		{`'it''s' | herald_text`, false},
		{"name", false},
		{"name | herald_html | herald_html", false},
		{"name | herald_fallback | herald_html", false},
		{"name | herald_fallback : 'x' | herald_html", false},
		{"name | herald_fallback: 'x', 'y' | herald_html", false},
		{"name | herald_html: 1", false},
		{"name | upcase | herald_html", false},
		{"name: | herald_html", false},
		{"a. b | herald_html", false},
		{"a..b | herald_html", false},
		{"a.1 | herald_html", false},
		{"or | herald_html", false},
		{"order | herald_html", true},
		{"nil? | herald_html", true},
		{`"open | herald_html`, false},
	} {
		if _, ok := parseOutput(c.expr); ok != c.ok {
			t.Errorf("parseOutput(%q) ok = %v, want %v", c.expr, ok, c.ok)
		}
	}
}

func TestWriteEscapedHTML(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">'Tom' & Jerry</a>`, "&&", "\xff<\xfe", "é<"} {
		var b strings.Builder
		writeEscapedHTML(&b, s)
		if b.String() != html.EscapeString(s) {
			t.Errorf("writeEscapedHTML(%q) = %q, want %q", s, b.String(), html.EscapeString(s))
		}
	}
}

// stringer is a value of a type a plan does not handle.
type stringer struct{ s string }

func (s stringer) String() string { return s.s }

// drop is a Liquid drop: Liquid renders what ToLiquid returns.
type drop struct{}

func (drop) ToLiquid() any { return "<dropped>" }

// templateGen generates templates in the forms plans render, and
// variables for them.
type templateGen struct{ rng *rand.Rand }

func (g templateGen) pick(options ...string) string { return options[g.rng.IntN(len(options))] }

// template is text and placeholders. Now and then the text has a brace
// next to a tag, which can change or break how the tags are read.
func (g templateGen) template() string {
	var b strings.Builder
	for range g.rng.IntN(6) + 1 {
		b.WriteString(g.text())
		b.WriteString(g.output())
	}
	b.WriteString(g.text())
	return b.String()
}

func (g templateGen) text() string {
	if g.rng.IntN(20) == 0 {
		return g.pick("{", "}", "{ b }")
	}
	return g.pick("", "Hello ", "<p>", "</p>\n", " & ", "\r\n", "é", "'\"", "Bcc: x@y.z\n",
		"{% comment %}{{ hidden }}{% endcomment %}")
}

// output is one placeholder, escaped or not, with or without fallbacks.
func (g templateGen) output() string {
	expr := g.path()
	for g.rng.IntN(3) == 0 {
		sep := g.pick(" ?? ", " ??")
		if !strings.HasSuffix(expr, "?") { // "ok???" is not "ok? ??"
			sep = g.pick(sep, "??", "?? ")
		}
		expr += sep + g.operand()
	}
	switch g.rng.IntN(4) {
	case 0:
		return "{{{ " + expr + " }}}"
	case 1:
		return "{{" + expr + "}}"
	}
	return "{{ " + expr + " }}"
}

func (g templateGen) operand() string {
	if g.rng.IntN(2) == 0 {
		return g.pick(`"fall<back>"`, `'it "quoted" & ok'`, `""`)
	}
	return g.path()
}

// path is a name, data.name or either with properties; never a bare
// {{ data }}, which plans leave to Liquid.
func (g templateGen) path() string {
	var parts []string
	name := g.name()
	if name == "data" || g.rng.IntN(3) == 0 {
		parts = append(parts, "data")
	}
	parts = append(parts, name)
	for range g.rng.IntN(3) {
		parts = append(parts, g.pick("city", "n", "size", "first", "last", "deep", "key", "list", "missing",
			"data", "name"))
	}
	return strings.Join(parts, ".")
}

func (g templateGen) name() string {
	return g.pick("name", "email", "city", "empty", "size", "first", "tags", "address", "first-name", "ok?",
		"data", "missing")
}

// vars binds most names, to values of every kind contact data and the send
// paths produce, hostile ones included, and rarely to one plans leave to
// Liquid.
func (g templateGen) vars() map[string]any {
	vars := map[string]any{}
	for range g.rng.IntN(12) {
		vars[g.name()] = g.value()
	}
	return vars
}

func (g templateGen) value() any {
	if g.rng.IntN(30) == 0 {
		s := "<pointer>"
		return []any{int32(5), uint8(3), &s, (*string)(nil), time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			stringer{"<s>"}, drop{}, map[string]string{"city": "Lyon"}, []string{"p", "q"}}[g.rng.IntN(9)]
	}
	values := []any{
		nil, "", "Ann", `<script>alert("x")</script>`, "Tom & Jerry's", "line one\r\nline two\nthree\rfour",
		"é ü \xff", "size", true, false, 0, 1, 7, int64(300), int64(-5), 1.5, 1e21, 0.1,
		json.Number("12345"), json.Number("99.50"), json.Number("1e3"), json.Number("-0"),
		json.Number(""), json.Number("abc"),
		[]any{}, []any{"<only>"}, []any{"a", json.Number("2.50"), "<b>"}, []any{nil, true},
		map[string]any{}, map[string]any{"city": "<Paris>", "n": json.Number("5.0"), "size": "big"},
		map[string]any{"deep": map[string]any{"key": "'v'", "list": []any{"x", "y"}}, "name": "<N>"},
	}
	return values[g.rng.IntN(len(values))]
}

// TestPlanMatchesLiquid renders generated templates with their plan and
// with Liquid, and requires the same output.
func TestPlanMatchesLiquid(t *testing.T) {
	gen := templateGen{rand.New(rand.NewPCG(1, 2))}
	r := NewRenderer()
	var planned, gaveUp, unplanned, invalid int
	for range 2000 {
		tpl, vars := gen.template(), gen.vars()
		for _, mode := range []Mode{HTML, Text, Header} {
			tc, err := r.parse(tpl, mode)
			if err != nil { // a brace next to a tag can break it
				invalid++
				continue
			}
			want, err := renderWithLiquid(tc, vars, mode)
			if err != nil {
				t.Fatalf("Liquid render of %q: %v", tpl, err)
			}
			got, err := r.Render(context.Background(), tpl, vars, mode)
			if err != nil || got != want {
				t.Fatalf("Render(%q, %d) with %s\n got %q, %v\nwant %q", tpl, mode, describe(vars), got, err, want)
			}
			switch {
			case tc.plan == nil: // a brace next to a tag can join two tags
				unplanned++
			case planRenders(tc.plan, vars):
				planned++
			default:
				gaveUp++
			}
		}
	}
	t.Logf("plan used %d times, gave up %d times; %d templates without a plan, %d invalid",
		planned, gaveUp, unplanned, invalid)
	// The generator mostly makes valid templates and plain values, so the
	// comparisons must mostly have been with a plan.
	if planned < 2*(gaveUp+unplanned+invalid) {
		t.Fatal("too few renders used a plan")
	}
}

// TestPlanGivesUpOnOtherTypes pins that values of other types are left to
// Liquid rather than printed another way.
func TestPlanGivesUpOnOtherTypes(t *testing.T) {
	r := NewRenderer()
	s := "<pointer>"
	for _, v := range []any{int32(5), &s, drop{}, stringer{"x"}, time.Unix(0, 0).UTC(), []string{"a"}} {
		for _, tpl := range []string{"{{ v }}", "{{ data.v }}", "{{ missing ?? v }}", "{{ v.size }}"} {
			vars := map[string]any{"v": v}
			tc, err := r.parse(tpl, HTML)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := tc.plan.render(vars, 0); ok {
				t.Errorf("plan rendered %q with a %T", tpl, v)
			}
			want, _ := renderWithLiquid(tc, vars, HTML)
			if got, err := r.Render(context.Background(), tpl, vars, HTML); err != nil || got != want {
				t.Errorf("Render(%q) with a %T = %q, %v; want %q", tpl, v, got, err, want)
			}
		}
	}
}

func planRenders(p *plan, vars map[string]any) bool {
	_, ok, _ := p.render(vars, 0)
	return ok
}

// describe prints vars with their types, for failure messages.
func describe(vars map[string]any) string {
	var b strings.Builder
	for k, v := range vars {
		fmt.Fprintf(&b, "%s=%T(%#v) ", k, v, v)
	}
	return b.String()
}

func TestNormalizeNumbers(t *testing.T) {
	for _, c := range []struct {
		in   json.Number
		want any
	}{
		{"12345", 12345},
		{"-7", -7},
		{"99.50", 99.5},
		{"1e3", 1000.0},
		{"1E3", 1000.0},
		{"9223372036854775808", 9223372036854775808.0},
		{"abc", "abc"},
		{"", ""},
	} {
		if got := normalize(c.in); got != c.want {
			t.Errorf("normalize(%q) = %T(%v), want %T(%v)", c.in, got, got, c.want, c.want)
		}
	}
}
