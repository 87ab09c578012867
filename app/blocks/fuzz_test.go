package blocks_test

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/heraldmail/herald/app/blocks"
)

// renderedTags are the elements and attributes Render writes itself; a
// rendering with any other let markup through from a document.
var renderedTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "div": true,
	"table": true, "tr": true, "td": true, "h1": true, "h2": true, "h3": true, "p": true, "br": true,
	"b": true, "strong": true, "i": true, "em": true, "a": true, "img": true,
}

var renderedAttrs = map[string]bool{
	"lang": true, "dir": true, "xmlns": true, "xmlns:o": true, "charset": true, "name": true, "content": true,
	"http-equiv": true, "style": true, "role": true, "aria-roledescription": true, "aria-label": true,
	"width": true, "height": true, "cellpadding": true, "cellspacing": true, "border": true, "align": true,
	"valign": true, "class": true, "bgcolor": true, "href": true, "src": true, "alt": true,
}

// checkRendering fails on a script, an element or attribute Render does
// not write, or a link whose scheme is not one mail may follow.
func checkRendering(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(strings.ToLower(out), "<script") {
		t.Fatalf("a script in the rendering:\n%s", out)
	}
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("the rendering does not tokenize: %v", z.Err())
			}
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		if !renderedTags[string(name)] {
			t.Fatalf("element %s in the rendering:\n%s", name, out)
		}
		for more {
			var key, val []byte
			key, val, more = z.TagAttr()
			if !renderedAttrs[string(key)] {
				t.Fatalf("attribute %s on %s in the rendering:\n%s", key, name, out)
			}
			v := strings.ToLower(strings.TrimSpace(string(val)))
			if (string(key) == "href" || string(key) == "src") && v != "#" && !strings.HasPrefix(v, "{{") &&
				!strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "mailto:") {
				t.Fatalf("%s=%q in the rendering", key, val)
			}
		}
	}
}

// FuzzBlocks: decoding any input and rendering what it accepts never
// panics and never puts a script, foreign markup or an unsafe link into
// the email; Decode and Validate agree, and an accepted document comes
// back from its JSON unchanged. The input also fills every field of a
// document that was never validated, which must render as safely.
func FuzzBlocks(f *testing.F) {
	names, docs := standardDocuments(uploadSrc)
	for i, d := range docs {
		raw, err := json.Marshal(d)
		if err != nil {
			f.Fatal(names[i], err)
		}
		f.Add(raw)
	}
	for _, s := range []string{
		`{"rows":[{"columns":[{"blocks":[{"type":"text","html":"<p>Hi <a href=\"{{unsubscribeUrl}}\">x</a></p>"}]}]}]}`,
		`{"rows":[{"columns":[{"blocks":[{"type":"text","html":"<scr<script>ipt>alert(1)</script>"}]}]}]}`,
		`{"rows":[{"columns":[{"blocks":[{"type":"heading","text":"{{ \"<\" }}","level":1}]}]}]}`,
		`<a href="javascript:alert(1)">{{{ x }}}</a>{% raw %}`,
	} {
		f.Add([]byte(s))
	}
	anyImage := func(string) (bool, error) { return true, nil }
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := blocks.Decode(data, anyImage)
		if err == nil {
			if err := blocks.Validate(d, anyImage); err != nil {
				t.Fatalf("Validate refuses what Decode accepted: %v", err)
			}
			checkRendering(t, blocks.Render(d, blocks.Options{Title: "Hi"}))
			_ = blocks.RenderText(d, blocks.Options{})
			raw, _ := json.Marshal(d)
			again, err := blocks.Decode(raw, anyImage)
			if err != nil || !reflect.DeepEqual(d, again) {
				t.Fatalf("round trip through %s: %v", raw, err)
			}
		}
		s := string(data)
		unchecked := blocks.Document{Rows: []blocks.Row{{Columns: []blocks.Column{{Blocks: []blocks.Block{
			{Type: blocks.Heading, Text: s, Level: len(s) % 5},
			{Type: blocks.Text, HTML: s},
			{Type: blocks.Image, Src: s, Alt: s, Href: s},
			{Type: blocks.Image, Src: uploadSrc, Alt: s, Href: s},
			{Type: blocks.Button, Text: s, Href: s},
			{Type: blocks.Spacer, Height: len(s)},
			{Type: blocks.Footer, Text: s},
			{Type: blocks.Type(s)},
		}}}}}}
		o := blocks.Options{Lang: s, Title: s}
		checkRendering(t, blocks.Render(unchecked, o))
		_ = blocks.RenderText(unchecked, o)
	})
}
