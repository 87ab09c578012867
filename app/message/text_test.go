package message

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHTMLToText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "Hello", "Hello"},
		{"whitespace collapsed", "  Hello \n\t  world  ", "Hello world"},
		{"entities", "Tom &amp; Jerry &lt;3 &eacute;t&#233; &#x263A;&nbsp;!", "Tom & Jerry <3 été ☺ !"},
		{"script style head dropped",
			"<html><head><title>T</title><style>p{x:y}</style></head><body><script>alert(1)</script>Hi</body></html>", "Hi"},
		{"head without end tag", "<head><title>T</title><body>Hi", "Hi"},
		{"paragraphs", "<p>One</p><p>Two</p>", "One\n\nTwo"},
		{"br", "a<br>b<br/>c<br><br>d", "a\nb\nc\n\nd"},
		{"div", "<div>a</div><div>b</div>", "a\nb"},
		{"headings", "<h1>Title</h1>Text", "Title\n\nText"},
		{"list", "<ul><li>one</li><li>two</li></ul>after", "- one\n- two\n\nafter"},
		{"link", `Go <a href="https://example.com/x?a=1&amp;b=2">here</a>.`, "Go here (https://example.com/x?a=1&b=2)."},
		{"link same as text", `<a href="https://example.com/">example.com</a>`, "example.com"},
		{"mailto", `<a href="mailto:a@example.com">a@example.com</a>`, "a@example.com"},
		{"image link", `<a href="https://x.example/"><img src="i.png"></a>`, "https://x.example/"},
		{"image alt", `<img src="i.png" alt="Logo"> Shop`, "Logo Shop"},
		{"anchor link", `<a href="#top">Top</a>`, "Top"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"pre keeps spaces", "<pre>a  b\n  c</pre>", "a  b\n  c"},
		{"invisible padding", "Preview&zwnj;&nbsp;&zwnj;&nbsp;&#847; text", "Preview text"},
		{"comments", "a<!-- hidden -->b", "ab"},
		{"no tags with newlines", "line1\nline2", "line1 line2"},
		{"empty", "", ""},
		{"uppercase tags", "<P>One</P><P>Two<BR>three</P>", "One\n\nTwo\nthree"},
		{"quoted >", `<a title="a > b" href='https://x.example/?q=1>2'>go</a>`, "go (https://x.example/?q=1>2)"},
		{"unquoted attr", `<a href=https://x.example/p>go</a>`, "go (https://x.example/p)"},
		{"lone <", "a < b and 1 <2", "a < b and 1 <2"},
		{"script with tags", "<SCRIPT>if (a</b) { '</div>' }</script >ok", "ok"},
		{"doctype and cdata", "<!DOCTYPE html><![CDATA[x]]>Hi<?php echo 1 ?>", "Hi"},
		{"unterminated comment", "a<!-- never closed", "a"},
		{"unterminated tag", "a<div class=", "a"},
		{"self-closing", "<img alt='Logo'/><br/>x", "Logo\nx"},
		{"entity in attribute", `<a href="https://x.example/?a=1&amp;b=2">l</a>`, "l (https://x.example/?a=1&b=2)"},
		{"entity forms", "&amp;amp; &AMP; &copy 2025 &#150; &#x41;&#65; &rsquo;&bogus; &notit; & done &", "&amp; & \u00a9 2025 \u2013 AA \u2019&bogus; \u00acit; & done &"},
		{"javascript link", `<a href="javascript:void(0)">Click</a>`, "Click"},
	}
	for _, c := range cases {
		if got := HTMLToText(c.in); got != c.want {
			t.Errorf("%s: HTMLToText(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestHTMLToTextWraps(t *testing.T) {
	in := "<p>" + strings.Repeat("wörd ", 60) + "</p><p>" + strings.Repeat("x", 100) + " tail</p>"
	out := HTMLToText(in)
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > wrapAt && strings.Contains(l, " ") {
			t.Errorf("line of %d runes not wrapped: %q", n, l)
		}
	}
	if got := strings.Join(strings.Fields(out), " "); got != strings.TrimSpace(strings.Repeat("wörd ", 60))+" "+strings.Repeat("x", 100)+" tail" {
		t.Errorf("wrapping changed the words: %q", out)
	}
	if !strings.Contains(out, "\n"+strings.Repeat("x", 100)+"\ntail") && !strings.Contains(out, "\n"+strings.Repeat("x", 100)+" tail") {
		t.Errorf("long word split or misplaced: %q", out)
	}
}
