package render

import (
	"testing"
)

func TestURLAttributesFromDataKeepSafeSchemes(t *testing.T) {
	r := NewRenderer()
	for _, tc := range []struct{ tpl, url, want string }{
		{`<a href="{{u}}">x</a>`, "javascript:alert(1)", `<a href="#">x</a>`},
		{`<a href="{{u}}">x</a>`, " JaVa\tScRiPt:alert(1)", `<a href="#">x</a>`},
		{`<a href='{{ u }}'>x</a>`, "data:text/html;base64,PHNjcmlwdD4=", `<a href='#'>x</a>`},
		{`<a href={{u}}>x</a>`, "vbscript:x", `<a href=#>x</a>`},
		{`<img src="{{{u}}}">`, "javascript:x", `<img src="#">`},
		// A numeric reference without its semicolon, as browsers read it:
		// U+0001, which URL parsing strips, then the scheme.
		{`<a href="{{{u}}}">x</a>`, "&#1javascript:x", `<a href="#">x</a>`},
		{`<a href="{{{u}}}">x</a>`, "&#1A:", `<a href="#">x</a>`},
		{`<a HREF = "{{u ?? "https://d.example"}}">x</a>`, "", `<a HREF = "https://d.example">x</a>`},
		{`<a href="{{u}}">x</a>`, "https://example.com/?a=1&b=2", `<a href="https://example.com/?a=1&amp;b=2">x</a>`},
		{`<a href="{{u}}">x</a>`, "mailto:a@example.com", `<a href="mailto:a@example.com">x</a>`},
		{`<a href="{{u}}">x</a>`, "tel:+4912345", `<a href="tel:+4912345">x</a>`},
		{`<a href="{{u}}">x</a>`, "/relative/path", `<a href="/relative/path">x</a>`},
		{`<a href="{% if u %}{{u}}{% endif %}">x</a>`, "javascript:x", `<a href="#">x</a>`},
		// The template's author fixed the scheme: the value is a part of it.
		{`<a href="https://example.com/?q={{u}}">x</a>`, "javascript:x", `<a href="https://example.com/?q=javascript:x">x</a>`},
		// Not a URL attribute, or not in a tag at all: escaped text.
		{`<a title="{{u}}">javascript:x</a>`, "javascript:x", `<a title="javascript:x">javascript:x</a>`},
		{`<p>{{u}}</p>`, "javascript:x", `<p>javascript:x</p>`},
		{`<!-- <a href="--> {{u}}`, "javascript:x", `<!-- <a href="--> javascript:x`},
		{`<a class="b" href="{{u}}" title="{{u}}">`, "javascript:x", `<a class="b" href="#" title="javascript:x">`},
	} {
		got, err := r.Render(t.Context(), tc.tpl, map[string]any{"u": tc.url}, HTML)
		if err != nil {
			t.Fatalf("%s: %v", tc.tpl, err)
		}
		if got != tc.want {
			t.Errorf("%s with %q:\n got %s\nwant %s", tc.tpl, tc.url, got, tc.want)
		}
	}
	// A plain-text body has no attributes.
	got, err := r.Render(t.Context(), `<a href="{{u}}">`, map[string]any{"u": "javascript:x"}, Text)
	if err != nil || got != `<a href="javascript:x">` {
		t.Errorf("text mode: %q %v", got, err)
	}
}
