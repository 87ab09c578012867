package tracking

import "testing"

func TestAnchorLinks(t *testing.T) {
	cases := []struct {
		html string
		want []string
	}{
		{`<a href="https://a.example/x">x</a>`, []string{"https://a.example/x"}},
		{`<A class="b" HREF = 'http://b.example/?q=1&amp;r=2'>`, []string{"http://b.example/?q=1&amp;r=2"}},
		{"<a\n  href=\"https://c.example\">", []string{"https://c.example"}},
		{`<a href="mailto:x@example.com">`, nil},
		{`<a href="/relative">`, nil},
		{`<abbr href="https://no.example">`, nil},
		{`<link href="https://no.example/style.css">`, nil},
		{`<a data-href="https://no.example" >`, nil},
		{`<a href=https://unquoted.example>`, nil},
		{`<p>text</p><a href="https://one.example">1</a><a href="https://two.example">2</a>`,
			[]string{"https://one.example", "https://two.example"}},
	}
	for _, c := range cases {
		var got []string
		for _, l := range anchorLinks(c.html) {
			got = append(got, c.html[l.start:l.end])
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q, want %q", c.html, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: got %q, want %q", c.html, got, c.want)
			}
		}
	}
}
