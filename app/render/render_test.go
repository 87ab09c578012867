package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func testVars() map[string]any {
	data := map[string]any{
		"name":       "Ann",
		"first-name": "Ann",
		"evil":       `<script>alert("x")</script>`,
		"amp":        "Tom & Jerry",
		"empty":      "",
		"age":        json.Number("42"),
		"price":      json.Number("9.5"),
		"vip":        false,
		"tags":       []any{"a", "b"},
		"address":    map[string]any{"city": "Paris"},
		"multi":      "line one\r\nline two\nthree\rfour",
		"with space": "spaced",
	}
	// As the send paths build them: the contact's data with the values
	// Herald fills in laid over it. "data" is bound by the renderer.
	vars := map[string]any{"email": "ann@example.com", "id": "c1", "herald_id": "c1",
		"herald_email": "ann@example.com", "unsubscribeUrl": "https://h.test/u?a=1&b=2"}
	for k, v := range data {
		vars[k] = v
	}
	return vars
}

func TestRender(t *testing.T) {
	r := NewRenderer()
	cases := []struct {
		name, tpl string
		mode      Mode
		want      string
	}{
		{"plain variable", "Hi {{name}}!", HTML, "Hi Ann!"},
		{"spaces and data prefix", "Hi {{ data.name }}", HTML, "Hi Ann"},
		{"hyphenated key", "{{ first-name }}", HTML, "Ann"},
		{"key with a space", `{{ data["with space"] }}`, HTML, "spaced"},
		{"builtin vars", "{{email}} {{id}} {{herald_id}} {{herald_email}}", Text, "ann@example.com c1 c1 ann@example.com"},
		{"missing renders empty", "[{{ nothere }}][{{ data.nothere }}][{{ address.nothere.deeper }}]", HTML, "[][][]"},
		{"script escaped in HTML", "<p>{{ evil }}</p>", HTML, "<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p>"},
		{"ampersand escaped in HTML", "{{amp}}", HTML, "Tom &amp; Jerry"},
		{"url escaped in attribute", `<a href="{{ unsubscribeUrl }}">`, HTML, `<a href="https://h.test/u?a=1&amp;b=2">`},
		{"triple braces unescaped", "{{{ evil }}}", HTML, `<script>alert("x")</script>`},
		{"triple braces with data prefix", "{{{data.amp}}}", HTML, "Tom & Jerry"},
		{"text mode does not escape", "{{ evil }}", Text, `<script>alert("x")</script>`},
		{"fallback for missing", `Hi {{name2 ?? "there"}}`, HTML, "Hi there"},
		{"fallback for empty", `Hi {{ empty ?? 'friend' }}`, HTML, "Hi friend"},
		{"fallback not used", `Hi {{ name ?? "there" }}`, HTML, "Hi Ann"},
		{"fallback keeps false", `{{ vip ?? "x" }}`, HTML, "false"},
		{"fallback chain", `{{ a ?? b ?? "c" }}`, HTML, "c"},
		{"fallback to variable", `{{ a ?? name }}`, HTML, "Ann"},
		{"fallback escaped", `{{ a ?? "<b>" }}`, HTML, "&lt;b&gt;"},
		{"question marks in string", `{{ a ?? "why??" }}`, HTML, "why??"},
		{"fallback then filter", `{{ a ?? "x" | upcase }}`, HTML, "X"},
		{"filters", "{{ name | upcase }} {{ name | size }}", HTML, "ANN 3"},
		{"numbers compare", "{% if age > 30 %}old{% else %}young{% endif %}", HTML, "old"},
		{"number output", "{{ age }} {{ price }} {{ age | plus: 1 }}", HTML, "42 9.5 43"},
		{"conditional on data", `{% if vip %}VIP{% else %}regular{% endif %}`, HTML, "regular"},
		{"loop escapes items", "{% for t in tags %}<{{ t }}>{% endfor %}", HTML, "<a><b>"},
		{"list output", "{{ tags }}", HTML, "a, b"},
		{"map output is JSON", "{{{ address }}}", HTML, `{"city":"Paris"}`},
		{"assign then output is escaped", `{% assign x = evil %}{{ x }}`, HTML, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"},
		{"whitespace control", "a {{- name -}} b", HTML, "aAnnb"},
		{"raw block left alone", "{% raw %}{{ name }} {{{ x }}}{% endraw %}", HTML, "{{ name }} {{{ x }}}"},
		{"subject CRLF", "Hello {{ multi }}", Header, "Hello line one line two three four"},
		{"subject literal newline", "Hello\r\n{{ name }}\nBcc: x@y.z", Header, "Hello Ann Bcc: x@y.z"},
		{"subject not escaped", "{{ amp }}", Header, "Tom & Jerry"},
		{"lone braces are text", "a { b } {{ c", HTML, "a { b } {{ c"},
	}
	vars := testVars()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.Render(context.Background(), c.tpl, vars, c.mode)
			if err != nil {
				t.Fatalf("Render(%q): %v", c.tpl, err)
			}
			if got != c.want {
				t.Errorf("Render(%q)\n got %q\nwant %q", c.tpl, got, c.want)
			}
		})
	}
}

func TestContactKeyNamedData(t *testing.T) {
	vars := map[string]any{"data": "own value", "name": "Ann"}
	got, err := NewRenderer().Render(context.Background(), "{{ data.data }} {{ data.name }} {{ name }}", vars, HTML)
	if err != nil || got != "own value Ann Ann" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestRenderDoesNotModifyVars(t *testing.T) {
	vars := testVars()
	if _, err := NewRenderer().Render(context.Background(), `{% assign name = "Bob" %}{{ name }}`, vars, HTML); err != nil {
		t.Fatal(err)
	}
	if vars["name"] != "Ann" {
		t.Errorf("vars changed: name = %v", vars["name"])
	}
	if _, ok := vars["age"].(json.Number); !ok {
		t.Errorf("vars changed: age is %T", vars["age"])
	}
}

func TestSyntaxErrors(t *testing.T) {
	r := NewRenderer()
	for _, tpl := range []string{
		"{{ name | }}",
		"{% if name %}unterminated",
		"{% bogus %}",
		"{{ name | nosuchfilter }}",
		`{% include "/etc/passwd" %}`,
		`{%- include 'x' -%}`,
	} {
		for _, mode := range []Mode{HTML, Text, Header} {
			err := r.Check(context.Background(), tpl, mode)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("Check(%q, %d) = %v, want a *SyntaxError", tpl, mode, err)
				continue
			}
			if strings.Contains(se.Message, "herald_") {
				t.Errorf("message %q shows the internal rewrite", se.Message)
			}
			if _, err := r.Render(context.Background(), tpl, nil, mode); !errors.As(err, &se) {
				t.Errorf("Render(%q) = %v, want a *SyntaxError", tpl, err)
			}
		}
	}
}

func TestIncludeInsideRawIsText(t *testing.T) {
	got, err := NewRenderer().Render(context.Background(), `{% raw %}{% include "x" %}{% endraw %}`, nil, HTML)
	if err != nil || got != `{% include "x" %}` {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestRenderErrorIsNotSyntaxError(t *testing.T) {
	_, err := NewRenderer().Render(context.Background(), "{{ 1 | divided_by: 0 }}", nil, HTML)
	var se *SyntaxError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("got %v, want a render error", err)
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := newParseCache(3, 1<<20)
	r := NewRenderer()
	r.cache = c
	for i := range 10 {
		if _, err := r.Render(context.Background(), fmt.Sprintf("{{ name }} %d", i), testVars(), HTML); err != nil {
			t.Fatal(err)
		}
	}
	if c.len() != 3 {
		t.Fatalf("cache holds %d templates, want 3", c.len())
	}
	small := newParseCache(100, 10)
	r.cache = small
	for range 3 {
		if _, err := r.Render(context.Background(), "0123456789 {{ name }}", testVars(), HTML); err != nil {
			t.Fatal(err)
		}
	}
	if small.len() != 0 {
		t.Fatalf("a template above the byte budget was cached")
	}
}

func TestModesCachedApart(t *testing.T) {
	r := NewRenderer()
	vars := testVars()
	html, _ := r.Render(context.Background(), "{{ amp }}", vars, HTML)
	text, _ := r.Render(context.Background(), "{{ amp }}", vars, Text)
	if html == text {
		t.Fatalf("HTML and text rendered alike: %q", html)
	}
}

func TestConcurrentRender(t *testing.T) {
	r := NewRenderer()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vars := testVars()
			vars["n"] = i
			for range 50 {
				got, err := r.Render(context.Background(), "{{ n }}:{{ name }}", vars, HTML)
				if err != nil || got != fmt.Sprintf("%d:Ann", i) {
					t.Errorf("got %q, %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A number from contact data bounds a loop: Liquid wants an int there, and
// an int64 failed with "can't convert int64(3) to type int".
func TestDataNumbersBoundLoops(t *testing.T) {
	vars := map[string]any{"n": json.Number("3")}
	got, err := NewRenderer().Render(context.Background(), `{% for i in (1..n) limit: n %}{{ i }}{% endfor %}`, vars, Text)
	if err != nil || got != "123" {
		t.Fatalf("%q, %v", got, err)
	}
}
