package render

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// bomb is the template that took the process to 2.2 GB and 10 s of CPU: a
// string doubled by assign/append thirty times, then printed in nested
// loops.
const bomb = `{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}` +
	`{% for a in (1..1000) %}{% for b in (1..1000) %}{{ s }}{% endfor %}{% endfor %}`

// renderCounted renders tpl with Liquid (no plan) and returns the budget,
// so that a test can count the work done before the render stopped.
func renderCounted(t *testing.T, ctx context.Context, tpl string, vars map[string]any) (*budget, error) {
	t.Helper()
	r := NewRenderer()
	c, err := r.parse(tpl, HTML)
	if err != nil {
		t.Fatal(err)
	}
	b := newBudget(ctx)
	// The other bounds are under test here, not the second of work: on a
	// loaded machine under -race a 1 MiB render can take longer than that.
	b.deadline = time.Now().Add(time.Minute)
	_, err = r.renderLiquid(&compiled{root: c.root}, vars, 0, b)
	return b, err
}

func wantLimit(t *testing.T, err error, limit string) {
	t.Helper()
	l, ok := asLimit(err)
	if !ok || l.Limit != limit {
		t.Fatalf("error %v, want the %s limit", err, limit)
	}
	if !strings.Contains(l.Message, map[string]string{"output": "1 MiB", "value": "1 MiB",
		"iterations": "100,000", "time": "1 s", "assigned": "8 MiB"}[limit]) {
		t.Fatalf("message %q does not name the limit", l.Message)
	}
}

// The bomb stops at the assignment that makes a value over 1 MiB, after
// some twenty iterations: nothing near 2 GB is ever built.
func TestBombStopsAtTheValueLimit(t *testing.T) {
	b, err := renderCounted(t, context.Background(), bomb, nil)
	wantLimit(t, err, "value")
	if b.iterations > 20 || b.output != 0 {
		t.Fatalf("the render went on: %d iterations, %d bytes out", b.iterations, b.output)
	}
}

// Each bound, crossed on its own, stops the render as soon as it is
// crossed.
func TestEachLimitStopsTheRender(t *testing.T) {
	kib := strings.Repeat("k", 1024)
	big := strings.Repeat("x", 900<<10)
	cases := []struct {
		name, tpl, limit string
		vars             map[string]any
		check            func(*budget) bool
	}{
		{"output", `{% for i in (1..5000) %}{{ k }}{% endfor %}`, "output", map[string]any{"k": kib},
			func(b *budget) bool { return b.iterations == 1025 && b.output <= MaxOutput+1024 }},
		{"empty nested loops", `{% for a in (1..1000) %}{% for b in (1..1000) %}{% endfor %}{% endfor %}`, "iterations", nil,
			func(b *budget) bool { return b.iterations == MaxIterations+1 }},
		{"tablerow", `{% tablerow i in (1..200000) %}{% endtablerow %}`, "output", nil,
			func(b *budget) bool { return b.iterations < 60000 && b.output <= MaxOutput+64 }},
		{"replace multiplies", `{{ big | replace: "x", "yy" }}`, "value", map[string]any{"big": big},
			func(b *budget) bool { return b.output == 0 }},
		{"range spelled out", `{{ (1..100000000) | join: "," }}`, "value", nil, nil},
		{"range sorted", `{% assign l = (1..200000000) | sort %}`, "value", nil, nil},
		{"join", `{% assign l = big | split: "" %}{{ l | join: "ab" }}`, "value", map[string]any{"big": big}, nil},
		{"capture", `{% capture c %}{% for i in (1..5000) %}{{ k }}{% endfor %}{% endcapture %}`, "value", map[string]any{"k": kib},
			func(b *budget) bool { return b.iterations <= 1025 }},
		{"assigned values add up", strings.Repeat(`{% assign a = big | append: "1" %}{% assign b = big | append: "2" %}`, 1) +
			`{% for i in (1..30) %}{% capture c %}{{ i }}{% endcapture %}{% assign v = big | append: c %}{% assign w = v %}` +
			`{% endfor %}` + assignMany(20), "assigned", map[string]any{"big": big}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := renderCounted(t, context.Background(), c.tpl, c.vars)
			wantLimit(t, err, c.limit)
			if c.check != nil && !c.check(b) {
				t.Fatalf("went on after the limit: %d iterations, %d bytes out", b.iterations, b.output)
			}
		})
	}
}

// assignMany assigns n different values of about 900 KiB each.
func assignMany(n int) string {
	var s strings.Builder
	for i := range n {
		s.WriteString(`{% assign v` + string(rune('a'+i)) + ` = big | append: "` + string(rune('a'+i)) + `" %}`)
	}
	return s.String()
}

// The render stops when the request's context ends and when its second of
// work is up.
func TestRenderStopsWithItsContextAndItsTime(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	loop := `{% for a in (1..300) %}{% for b in (1..300) %}{% assign x = b | plus: 1 %}{% endfor %}{% endfor %}`
	b, err := renderCounted(t, ctx, loop, nil)
	if !errors.Is(err, context.Canceled) || b.steps > 16 {
		t.Fatalf("cancelled: %v after %d steps", err, b.steps)
	}
	r := NewRenderer()
	c, _ := r.parse(loop, HTML)
	b = newBudget(context.Background())
	b.deadline = time.Now().Add(-time.Millisecond) // the second is up
	_, err = r.renderLiquid(c, nil, 0, b)
	wantLimit(t, err, "time")
	if b.steps > 16 {
		t.Fatalf("%d steps after the time was up", b.steps)
	}
	if _, err := r.Render(ctx, loop, nil, HTML); !errors.Is(err, context.Canceled) {
		t.Fatalf("Render with an ended context: %v", err)
	}
}

// A template of plain placeholders renders without Liquid (plan.go), and
// is bounded too: a 2 KB value in 1,000 placeholders is 2 MB.
func TestPlanStopsAtTheOutputLimit(t *testing.T) {
	r := NewRenderer()
	tpl := strings.Repeat("{{ v }}", 1000)
	_, err := r.Render(context.Background(), tpl, map[string]any{"v": strings.Repeat("v", 2048)}, HTML)
	wantLimit(t, err, "output")
	if c, _ := r.parse(tpl, HTML); c.plan == nil {
		t.Fatal("the template should have a plan")
	}
}

// Check, at save time, refuses a template that crosses a bound whatever
// the data: the bomb is refused when it is written, not when it is sent.
func TestCheckReportsLimits(t *testing.T) {
	r := NewRenderer()
	wantLimit(t, r.Check(context.Background(), bomb, HTML), "value")
	if err := r.Check(context.Background(), `{% for i in (1..n) %}{{ i }}{% endfor %}`, HTML); err != nil {
		t.Fatalf("a loop bounded by the data is checked when sent: %v", err)
	}
}

// Liquid v1.6's truncate and truncatewords built a regular expression of
// their length argument, which panics past 1,000; uniq compared lists and
// maps with every item kept so far.
func TestFiltersThatWereUnboundedInLiquid(t *testing.T) {
	r := NewRenderer()
	vars := map[string]any{"s": "one two three four five"}
	for tpl, want := range map[string]string{
		`{{ s | truncate: 5000 }}`:           "one two three four five",
		`{{ s | truncate: 9 }}`:              "one tw...",
		`{{ s | truncate: 9, "" }}`:          "one two t",
		`{{ s | truncatewords: 5000 }}`:      "one two three four five",
		`{{ s | truncatewords: 2 }}`:         "one two...",
		`{{ s | split: " " | uniq | size }}`: "5",
	} {
		got, err := r.Render(context.Background(), tpl, vars, Text)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", tpl, got, err, want)
		}
	}
	var many strings.Builder
	many.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"a":1}`)
	}
	many.WriteString("]")
	b, err := renderCounted(t, context.Background(), `{{ list | uniq | size }}`, map[string]any{"list": decodeJSON(t, many.String())})
	if err != nil || b.steps > 10 {
		t.Fatalf("uniq: %v after %d steps", err, b.steps)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Liquid v1.6 dereferences nil on this case tag (found by FuzzRender): the
// panic is an error of the render, and Check refuses the template.
func TestLiquidPanicsAreErrors(t *testing.T) {
	r := NewRenderer()
	tpl := `{%case {%when ""%}{%endcase%}`
	var p *PanicError
	if _, err := r.Render(context.Background(), tpl, nil, HTML); !errors.As(err, &p) || strings.Contains(err.Error(), "nil pointer") {
		t.Fatalf("Render: %v", err)
	}
	if err := r.Check(context.Background(), tpl, HTML); !errors.As(err, &p) {
		t.Fatalf("Check: %v", err)
	}
}
