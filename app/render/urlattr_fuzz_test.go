package render

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzURLAttributes renders contact data into the URL attributes of a few
// templates and reads the result as a browser would (golang.org/x/net/html
// decodes the entities): every href and src holds a URL without a scheme,
// or with http, https, mailto or tel. Seeds: testdata/fuzz/FuzzURLAttributes.
func FuzzURLAttributes(f *testing.F) {
	for _, s := range []string{"javascript:alert(1)", " JaVa\tScRiPt:x", "java&#58;script:x", "data:text/html,x",
		"https://example.com/?a=1&b=2", "mailto:a@b.c", "\x00javascript:x", "//evil.example/x", "vbscript&colon;x"} {
		f.Add(s)
	}
	r := NewRenderer()
	templates := []string{
		`<a href="{{u}}">x</a>`,
		`<a href='{{ u }}'>x</a>`,
		`<img src={{u}}>`,
		`<a class="c" HREF = "{{{u}}}" title="{{u}}">x</a>`,
		`<a href="{% if u %}{{u}}{% endif %}">x</a>`,
	}
	f.Fuzz(func(t *testing.T, u string) {
		for _, tpl := range templates {
			out, err := r.Render(context.Background(), tpl, map[string]any{"u": u}, HTML)
			if err != nil {
				continue
			}
			if strings.Contains(tpl, "{{{") && strings.ContainsAny(u, `"<>`) {
				continue // a raw value can close the attribute: the author's choice
			}
			doc, err := html.Parse(strings.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				for _, a := range n.Attr {
					if (a.Key == "href" || a.Key == "src") && !allowedScheme(a.Val) {
						t.Fatalf("%s with %q: %s=%q", tpl, u, a.Key, a.Val)
					}
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
		}
	})
}

// allowedScheme extracts a URL's scheme as the URL standard does (leading
// and trailing C0 controls and spaces stripped, tabs and newlines removed)
// and reports whether it is absent or one mail may link to.
func allowedScheme(v string) bool {
	v = strings.TrimFunc(v, func(r rune) bool { return r <= ' ' })
	v = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v)
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return true
	}
	scheme := v[:i]
	for j, c := range scheme {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return true // not a scheme: a relative URL
		}
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "mailto", "tel":
		return true
	}
	return false
}
