package blocks_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/blocks"
)

// The golden files pin Render's and RenderText's exact bytes for each
// standard block alone and all of them together. Run with -update only to
// accept an intended change of output, and review the diff (and run the
// SpamAssassin and browser tests: they judge these bytes).
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var goldenOptions = blocks.Options{Lang: "en", Title: `Spring news for {{ name ?? "you" }}`}

func TestRenderGolden(t *testing.T) {
	names, docs := standardDocuments(uploadSrc)
	for i, d := range docs {
		mustValid(t, d)
		golden(t, names[i]+".html", blocks.Render(d, goldenOptions))
		golden(t, names[i]+".txt", blocks.RenderText(d, goldenOptions))
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// One document gives the same bytes every time (no map order, no clock).
func TestRenderIsDeterministic(t *testing.T) {
	d := allTogether(uploadSrc)
	first, text := blocks.Render(d, goldenOptions), blocks.RenderText(d, goldenOptions)
	for range 20 {
		if blocks.Render(d, goldenOptions) != first || blocks.RenderText(d, goldenOptions) != text {
			t.Fatal("two renderings of one document differ")
		}
	}
}

// The pieces of the layout the design relies on.
func TestRenderLayout(t *testing.T) {
	html := blocks.Render(allTogether(uploadSrc), goldenOptions)
	for _, want := range []string{
		"<!DOCTYPE html>\n<html lang=\"en\" dir=\"ltr\"",
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<title>Spring news for {{ name ?? "you" }}</title>`,
		`style="width:100%;max-width:600px;margin:0 auto;`,
		`@media only screen and (max-width:620px)`,
		`<div class="herald-col" style="display:inline-block;width:100%;max-width:576px;vertical-align:top">`,
		`max-width:288px`, `max-width:192px`,
		`<td width="192" valign="top">`,
		`alt="A linen shirt in sand on a wooden hanger" width="552"`,
		`alt="A linen shirt in sand on a wooden hanger" width="168"`,
		`<a href="{{unsubscribeUrl}}" style="color:#6b7280;text-decoration:underline">Unsubscribe</a>`,
		`<h1 style="margin:0;`, `<h3 style="margin:0;`,
		`<p style="margin:0 0 12px 0">Hi {{ name ?? "there" }},</p>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendering lacks %q", want)
		}
	}
	if n, m := strings.Count(html, "<table"), strings.Count(html, `<table role="presentation"`); n != m {
		t.Errorf("%d tables, %d of them role=presentation", n, m)
	}
	if strings.Contains(strings.ToLower(html), "<script") {
		t.Error("a script in the rendering")
	}
	// Only the footer's link is Liquid of the renderer's own: the shell
	// and styles hold no tag app/render would read.
	shell := blocks.Render(blocks.Document{}, blocks.Options{})
	if strings.Contains(shell, "{{") || strings.Contains(shell, "{%") {
		t.Errorf("the shell holds Liquid:\n%s", shell)
	}
}

// The words of the footer's link follow the project's language.
func TestRenderLanguage(t *testing.T) {
	footer := oneColumn(blocks.Block{Type: blocks.Footer})
	for tag, want := range map[string]string{"": "en|Unsubscribe", "de-AT": "de|Abmelden", "FR": "fr|Se désabonner",
		"pt-BR": "pt|Cancelar inscrição", "ja": "en|Unsubscribe", "it": "it|Annulla l'iscrizione"} {
		lang, words, _ := strings.Cut(want, "|")
		html := blocks.Render(footer, blocks.Options{Lang: tag})
		if !strings.Contains(html, `<html lang="`+lang+`"`) || !strings.Contains(html, `lang="`+lang+`" dir="ltr" style=`) ||
			!strings.Contains(html, ">"+words+"</a>") {
			t.Errorf("Lang %q: want lang %s and %q", tag, lang, words)
		}
		if text := blocks.RenderText(footer, blocks.Options{Lang: tag}); text != words+" ({{unsubscribeUrl}})\n" {
			t.Errorf("Lang %q: text %q", tag, text)
		}
	}
}

// Plain text is escaped, Liquid tags are kept as written, and quotes are
// escaped only in attributes.
func TestRenderEscapes(t *testing.T) {
	d := oneColumn(
		blocks.Block{Type: blocks.Heading, Text: `Tom & Jerry's <b>"best"</b> {{ name ?? "you" }}`, Level: 2},
		blocks.Block{Type: blocks.Image, Src: uploadSrc + "?a=1&b=2", Alt: `5 > 4 & "quoted" {{ name ?? 'x' }}`,
			Href: "https://example.com/?a=1&b=\"2\""},
		blocks.Block{Type: blocks.Text, HTML: `<p>&lt;b&gt; &amp; &quot;q&quot; <a href="https://example.com/?a=1&amp;b=2">x</a></p>`},
		blocks.Block{Type: blocks.Footer, Text: "<i>Acme</i>\n{{ company }}"},
	)
	html := blocks.Render(d, blocks.Options{})
	for _, want := range []string{
		`>Tom &amp; Jerry's &lt;b&gt;"best"&lt;/b&gt; {{ name ?? "you" }}</h2>`,
		`src="` + uploadSrc + `?a=1&amp;b=2"`,
		`alt="5 &gt; 4 &amp; &quot;quoted&quot; {{ name ?? 'x' }}"`,
		`<a href="#" style="text-decoration:none">`, // a quote is not a URL's
		`&lt;b&gt; &amp; "q" <a href="https://example.com/?a=1&amp;b=2" style=`,
		`&lt;i&gt;Acme&lt;/i&gt;<br>` + "\n" + `{{ company }}<br>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendering lacks %q", want)
		}
	}
}

// A document made in Go and never validated renders without acting on
// what it holds: bad values show as inert text, bad links as "#", a bad
// image not at all, and out-of-range numbers are clamped.
func TestRenderUnvalidated(t *testing.T) {
	d := blocks.Document{Rows: []blocks.Row{{}, {Columns: []blocks.Column{{Blocks: []blocks.Block{
		{Type: blocks.Heading, Text: "{% include 'x' %}{{{ raw }}}", Level: 9},
		{Type: blocks.Text, HTML: `<script>alert(1)</script><p onclick="x">{{ a }}</p>`},
		{Type: blocks.Image, Src: "javascript:alert(1)", Alt: "x"},
		{Type: blocks.Button, Text: "Go", Href: "javascript:alert(1)"},
		{Type: blocks.Spacer, Height: 100000},
		{Type: "video", Src: uploadSrc},
		{Type: blocks.Footer, Text: "a\x00{{ b"},
	}}}}}}
	html := blocks.Render(d, blocks.Options{Title: "{{ a \"b\" }}"})
	for _, want := range []string{
		`<h3 style=`, `>&#123;% include 'x' %}&#123;&#123;&#123; raw }}}</h3>`,
		`&lt;script&gt;alert(1)&lt;/script&gt;&lt;p onclick="x"&gt;&#123;&#123; a }}&lt;/p&gt;`,
		`<a href="#" style="display:inline-block;`,
		`height="120"`,
		`a` + "\x00" + `&#123;&#123; b<br>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendering lacks %q", want)
		}
	}
	if strings.Contains(html, "javascript:") || strings.Contains(html, "<img") || strings.Contains(html, "aria-label") {
		t.Errorf("an unchecked value acted on:\n%s", html)
	}
	if got := strings.Count(html, "{{"); got != 2 { // the title's, kept in <title>, and the footer's link
		t.Errorf("%d Liquid tags, want the title's and the unsubscribe link's", got)
	}
}

// SpamAssassin's HTML_IMAGE_ONLY_* score any HTML part of 3,200 bytes or
// less that holds an image; the smallest document with an image renders
// larger, so that a trimmed shell cannot bring the rule back unseen.
func TestRenderImageDocumentIsNotImageOnly(t *testing.T) {
	html := blocks.Render(oneColumn(blocks.Block{Type: blocks.Image, Src: uploadSrc, Alt: "x"}), blocks.Options{})
	if len(html) <= 3200 {
		t.Errorf("the smallest image document is %d bytes, want more than 3,200", len(html))
	}
}

func TestRenderText(t *testing.T) {
	d := oneColumn(
		blocks.Block{Type: blocks.Heading, Text: "Hello {{ name  ??  'you' }}", Level: 1},
		blocks.Block{Type: blocks.Text, HTML: "Intro  text\n<p>One  <b>two</b>\n three<br>four <a href=\"https://example.com/x\">the <i>link</i></a>.</p>" +
			"<p><a href=\"https://example.com/\">https://example.com/</a> {{ a  }}</p>"},
		blocks.Block{Type: blocks.Image, Src: uploadSrc, Alt: "A shirt"},
		blocks.Block{Type: blocks.Image, Src: uploadSrc, Alt: "A shirt", Href: "https://example.com/shirt"},
		blocks.Block{Type: blocks.Button, Text: "Shop now", Href: "https://example.com/shop"},
		blocks.Block{Type: blocks.Divider},
		blocks.Block{Type: blocks.Spacer, Height: 40},
		blocks.Block{Type: blocks.Footer, Text: "Acme\r\n1 Main St"},
	)
	want := "Title\n\nHello {{ name  ??  'you' }}\n\nIntro text\n\nOne two three\nfour the link (https://example.com/x).\n\n" +
		"https://example.com/ {{ a  }}\n\nhttps://example.com/shirt\n\nShop now (https://example.com/shop)\n\n" +
		strings.Repeat("-", 40) + "\n\nAcme\n1 Main St\nUnsubscribe ({{unsubscribeUrl}})\n"
	if got := blocks.RenderText(d, blocks.Options{Title: "Title"}); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := blocks.RenderText(blocks.Document{}, blocks.Options{}); got != "" {
		t.Errorf("an empty document's text is %q", got)
	}
}
