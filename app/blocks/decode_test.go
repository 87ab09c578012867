package blocks_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/blocks"
)

// at is the path of the first block of the first column of the first row.
const at = "blocks.rows.0.columns.0.blocks.0"

// doc is a document whose first column holds the blocks given as JSON.
func doc(blockJSON ...string) string {
	return `{"rows":[{"columns":[{"blocks":[` + strings.Join(blockJSON, ",") + `]}]}]}`
}

// rows is a document of n rows of one column, each holding perColumn
// dividers.
func rows(n, perColumn int) string {
	col := `{"blocks":[` + strings.TrimSuffix(strings.Repeat(`{"type":"divider"},`, perColumn), ",") + `]}`
	row := `{"columns":[` + col + `]}`
	return `{"rows":[` + strings.TrimSuffix(strings.Repeat(row+",", n), ",") + `]}`
}

func problems(t *testing.T, err error) []apierr.FieldError {
	t.Helper()
	e, ok := apierr.AsError(err)
	if !ok || e.Kind != apierr.KindValidation || e.Code != "VALIDATION_ERROR" {
		t.Fatalf("want a validation *apierr.Error, got %T %v", err, err)
	}
	return e.Fields
}

// Every bad input is a 422 item at its path inside "blocks", with the
// code the rest of the API uses for the same kind of problem.
func TestDecodeRefuses(t *testing.T) {
	heading := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "heading", "text": text, "level": 1})
		return doc(string(b))
	}
	text := func(html string) string {
		b, _ := json.Marshal(map[string]any{"type": "text", "html": html})
		return doc(string(b))
	}
	button := func(href string) string {
		b, _ := json.Marshal(map[string]any{"type": "button", "text": "Go", "href": href})
		return doc(string(b))
	}
	image := func(fields string) string { return doc(`{"type":"image",` + fields + `}`) }
	const src = `"src":"` + uploadSrc + `"`
	cases := []struct {
		name, json, path, code string
	}{
		{"not JSON", `{"rows":`, "blocks", "invalid_type"},
		{"data after the value", `{"rows":[]} {}`, "blocks", "invalid_type"},
		{"an array", `[]`, "blocks", "invalid_type"},
		{"null", `null`, "blocks", "invalid_type"},
		{"too large", `{"rows":[],"x":"` + strings.Repeat("a", blocks.MaxDocumentBytes) + `"}`, "blocks", "too_big"},
		{"no rows", `{}`, "blocks.rows", "invalid_type"},
		{"rows not an array", `{"rows":{}}`, "blocks.rows", "invalid_type"},
		{"unknown top field", `{"rows":[{"columns":[{"blocks":[]}]}],"width":600}`, "blocks.width", "unrecognized_keys"},
		{"no row", `{"rows":[]}`, "blocks.rows", "too_small"},
		{"101 rows", rows(101, 0), "blocks.rows", "too_big"},
		{"a row not an object", `{"rows":[1]}`, "blocks.rows.0", "invalid_type"},
		{"a row without columns", `{"rows":[{}]}`, "blocks.rows.0.columns", "invalid_type"},
		{"a row with no column", `{"rows":[{"columns":[]}]}`, "blocks.rows.0.columns", "too_small"},
		{"a row of 4 columns", `{"rows":[{"columns":[{"blocks":[]},{"blocks":[]},{"blocks":[]},{"blocks":[]}]}]}`, "blocks.rows.0.columns", "too_big"},
		{"unknown row field", `{"rows":[{"columns":[{"blocks":[]}],"background":"red"}]}`, "blocks.rows.0.background", "unrecognized_keys"},
		{"a column not an object", `{"rows":[{"columns":[{"blocks":[]},[]]}]}`, "blocks.rows.0.columns.1", "invalid_type"},
		{"a column without blocks", `{"rows":[{"columns":[{"blocks":[]},{}]}]}`, "blocks.rows.0.columns.1.blocks", "invalid_type"},
		{"unknown column field", `{"rows":[{"columns":[{"blocks":[],"width":50}]}]}`, "blocks.rows.0.columns.0.width", "unrecognized_keys"},
		{"51 blocks in a column", rows(1, 51), "blocks.rows.0.columns.0.blocks", "too_big"},
		{"301 blocks", rows(7, 50), "blocks.rows.6.columns.0.blocks.0", "too_big"},
		{"a block not an object", doc(`"divider"`), at, "invalid_type"},
		{"a block without type", doc(`{"text":"x"}`), at + ".type", "invalid_type"},
		{"a type not a string", doc(`{"type":7}`), at + ".type", "invalid_type"},
		{"an unknown type", doc(`{"type":"video"}`), at + ".type", "invalid_enum_value"},
		{"a type in capitals", doc(`{"type":"DIVIDER"}`), at + ".type", "invalid_enum_value"},
		{"an unknown field", doc(`{"type":"divider","color":"red"}`), at + ".color", "unrecognized_keys"},
		{"another type's field", doc(`{"type":"button","text":"Go","href":"https://example.com","level":1}`), at + ".level", "unrecognized_keys"},

		{"heading without text", doc(`{"type":"heading","level":1}`), at + ".text", "invalid_type"},
		{"heading text a number", doc(`{"type":"heading","text":1,"level":1}`), at + ".text", "invalid_type"},
		{"heading text null", doc(`{"type":"heading","text":null,"level":1}`), at + ".text", "invalid_type"},
		{"heading blank", heading("   "), at + ".text", "too_small"},
		{"heading too long", heading(strings.Repeat("é", blocks.MaxHeadingChars+1)), at + ".text", "too_big"},
		{"heading of two lines", heading("a\nb"), at + ".text", "invalid_string"},
		{"heading with a control character", heading("a\x07b"), at + ".text", "invalid_string"},
		{"heading with a C1 control", heading("a\u0085b"), at + ".text", "invalid_string"},
		{"heading with a Liquid tag", heading("{% if x %}Hi{% endif %}"), at + ".text", "invalid_string"},
		{"heading with raw output", heading("Hi {{{ name }}}"), at + ".text", "invalid_string"},
		{"heading with an unclosed variable", heading("Hi {{ name"), at + ".text", "invalid_string"},
		{"heading with an empty variable", heading("Hi {{ }}"), at + ".text", "invalid_string"},
		{"heading with < in a variable", heading(`Hi {{ "<script>" }}`), at + ".text", "invalid_string"},
		{"heading without level", doc(`{"type":"heading","text":"Hi"}`), at + ".level", "invalid_type"},
		{"heading level a string", doc(`{"type":"heading","text":"Hi","level":"1"}`), at + ".level", "invalid_type"},
		{"heading level 0", doc(`{"type":"heading","text":"Hi","level":0}`), at + ".level", "too_small"},
		{"heading level 4", doc(`{"type":"heading","text":"Hi","level":4}`), at + ".level", "too_big"},
		{"heading level 1.5", doc(`{"type":"heading","text":"Hi","level":1.5}`), at + ".level", "invalid_type"},
		{"heading level huge", doc(`{"type":"heading","text":"Hi","level":1e999}`), at + ".level", "too_big"},

		{"text without html", doc(`{"type":"text"}`), at + ".html", "invalid_type"},
		{"text html an array", doc(`{"type":"text","html":["<p>"]}`), at + ".html", "invalid_type"},
		{"text empty", text(" \n "), at + ".html", "too_small"},
		{"text too long", text(strings.Repeat("a", blocks.MaxTextHTMLChars+1)), at + ".html", "too_big"},
		{"text with a div", text("<div>Hi</div>"), at + ".html", "invalid_string"},
		{"text with a span", text("<p><span>Hi</span></p>"), at + ".html", "invalid_string"},
		{"text with a script", text("<p>Hi</p><script>alert(1)</script>"), at + ".html", "invalid_string"},
		{"text with an image", text(`<img src="https://example.com/x.png">`), at + ".html", "invalid_string"},
		{"text with a style attribute", text(`<p style="color:red">Hi</p>`), at + ".html", "invalid_string"},
		{"text with an event handler", text(`<b onclick="alert(1)">Hi</b>`), at + ".html", "invalid_string"},
		{"text with a link's target", text(`<a href="https://example.com" target="_blank">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a link without href", text(`<a>Hi</a>`), at + ".html", "invalid_string"},
		{"text with a javascript link", text(`<a href="javascript:alert(1)">Hi</a>`), at + ".html", "invalid_string"},
		{"text with an entity-hidden javascript link", text(`<a href="jav&#x09;ascript:alert(1)">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a data link", text(`<a href="data:text/html,hi">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a relative link", text(`<a href="/spring">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a tel link", text(`<a href="tel:+4930123">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a link without host", text(`<a href="https:///x">Hi</a>`), at + ".html", "invalid_string"},
		{"text with a space in a link", text(`<a href="https://example.com/a b">Hi</a>`), at + ".html", "invalid_string"},
		{"text with double quotes in a link's variable", text(`<a href='{{ url ?? "https://x.example" }}'>Hi</a>`), at + ".html", "invalid_string"},
		{"text with a comment", text(`<p>Hi<!-- x --></p>`), at + ".html", "invalid_string"},
		{"text with a conditional comment", text(`<!--[if mso]><p>Hi</p><![endif]-->`), at + ".html", "invalid_string"},
		{"text with a doctype", text(`<!DOCTYPE html><p>Hi</p>`), at + ".html", "invalid_string"},
		{"text with an unclosed element", text(`<p>Hi`), at + ".html", "invalid_string"},
		{"text with a stray end tag", text(`Hi</b>`), at + ".html", "invalid_string"},
		{"text with crossed elements", text(`<b><i>Hi</b></i>`), at + ".html", "invalid_string"},
		{"text with a p in a p", text(`<p>a<p>b</p></p>`), at + ".html", "invalid_string"},
		{"text with a p in a b", text(`<b><p>Hi</p></b>`), at + ".html", "invalid_string"},
		{"text with a link in a link", text(`<a href="https://a.example"><a href="https://b.example">Hi</a></a>`), at + ".html", "invalid_string"},
		{"text with a self-closed p", text(`<p/>Hi`), at + ".html", "invalid_string"},
		{"text with an end br", text(`Hi</br>`), at + ".html", "invalid_string"},
		{"text nested too deep", text(strings.Repeat("<b>", 11) + "Hi" + strings.Repeat("</b>", 11)), at + ".html", "invalid_string"},
		{"text with a Liquid tag", text(`<p>{% if name %}Hi{% endif %}</p>`), at + ".html", "invalid_string"},
		{"text with raw output", text(`<p>{{{ name }}}</p>`), at + ".html", "invalid_string"},
		{"text with a variable across a tag", text(`<p>{{ name <b> }}</b></p>`), at + ".html", "invalid_string"},
		{"text with a control character", text("<p>a\x00b</p>"), at + ".html", "invalid_string"},

		{"image without src", image(`"alt":"A shirt"`), at + ".src", "invalid_type"},
		{"image src empty", image(`"src":"","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src not a URL", image(`"src":"shirt.png","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src javascript", image(`"src":"javascript:alert(1)","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src data", image(`"src":"data:image/png;base64,AAAA","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src with a variable", image(`"src":"https://herald.test/uploads/{{ id }}.png","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src with a quote", image(`"src":"https://herald.test/uploads/a\".png","alt":"A shirt"`), at + ".src", "invalid_string"},
		{"image src elsewhere", image(`"src":"https://example.com/shirt.png","alt":"A shirt"`), at + ".src", "upload_not_found"},
		{"image src another project's upload", image(`"src":"https://herald.test/uploads/ffffffffffffffffffffffffffffffff.png","alt":"A shirt"`), at + ".src", "upload_not_found"},
		{"image without alt", image(src), at + ".alt", "invalid_type"},
		{"image alt empty", image(src + `,"alt":""`), at + ".alt", "too_small"},
		{"image alt too long", image(src + `,"alt":"` + strings.Repeat("a", blocks.MaxAltChars+1) + `"`), at + ".alt", "too_big"},
		{"image alt of two lines", image(src + `,"alt":"a\nb"`), at + ".alt", "invalid_string"},
		{"image alt with a double-quoted variable", image(src + `,"alt":"{{ name ?? \"x\" }}"`), at + ".alt", "invalid_string"},
		{"image href a number", image(src + `,"alt":"A shirt","href":1`), at + ".href", "invalid_type"},
		{"image href javascript", image(src + `,"alt":"A shirt","href":"javascript:alert(1)"`), at + ".href", "invalid_string"},

		{"button without text", doc(`{"type":"button","href":"https://example.com"}`), at + ".text", "invalid_type"},
		{"button text blank", doc(`{"type":"button","text":" ","href":"https://example.com"}`), at + ".text", "too_small"},
		{"button text too long", doc(`{"type":"button","text":"` + strings.Repeat("a", blocks.MaxButtonTextChars+1) + `","href":"https://example.com"}`), at + ".text", "too_big"},
		{"button without href", doc(`{"type":"button","text":"Go"}`), at + ".href", "invalid_type"},
		{"button href null", doc(`{"type":"button","text":"Go","href":null}`), at + ".href", "invalid_type"},
		{"button href empty", button(""), at + ".href", "invalid_string"},
		{"button href too long", button("https://example.com/" + strings.Repeat("a", blocks.MaxURLChars)), at + ".href", "invalid_string"},
		{"button href without scheme", button("example.com"), at + ".href", "invalid_string"},
		{"button href ftp", button("ftp://example.com/file"), at + ".href", "invalid_string"},
		{"button href vbscript", button("vbscript:msgbox"), at + ".href", "invalid_string"},
		{"button href http without slashes", button("http:example.com"), at + ".href", "invalid_string"},
		{"button href mailto without address", button("mailto:"), at + ".href", "invalid_string"},
		{"button href with a line break", button("https://example.com/\nx"), at + ".href", "invalid_string"},
		{"button href unclosed variable", button("https://example.com/{{ id"), at + ".href", "invalid_string"},
		{"button href after text", button("go {{ url }}"), at + ".href", "invalid_string"},
		{"button href with a quote", button(`https://example.com/"x"`), at + ".href", "invalid_string"},
		{"button href with a backslash", button(`https:\\evil.example`), at + ".href", "invalid_string"},

		{"spacer without height", doc(`{"type":"spacer"}`), at + ".height", "invalid_type"},
		{"spacer height a string", doc(`{"type":"spacer","height":"24"}`), at + ".height", "invalid_type"},
		{"spacer height 3", doc(`{"type":"spacer","height":3}`), at + ".height", "too_small"},
		{"spacer height 121", doc(`{"type":"spacer","height":121}`), at + ".height", "too_big"},
		{"spacer height negative", doc(`{"type":"spacer","height":-24}`), at + ".height", "too_small"},

		{"footer without text", doc(`{"type":"footer"}`), at + ".text", "invalid_type"},
		{"footer text too long", doc(`{"type":"footer","text":"` + strings.Repeat("a", blocks.MaxFooterChars+1) + `"}`), at + ".text", "too_big"},
		{"footer text with a control character", doc(`{"type":"footer","text":"a\u0001b"}`), at + ".text", "invalid_string"},
		{"footer text with a Liquid tag", doc(`{"type":"footer","text":"{% raw %}x{% endraw %}"}`), at + ".text", "invalid_string"},

		{"the path of a later block", `{"rows":[{"columns":[{"blocks":[]}]},{"columns":[{"blocks":[]},{"blocks":[{"type":"divider"},{"type":"image","src":"` +
			uploadSrc + `","alt":"x"},{"type":"image","src":"` + uploadSrc + `"}]}]}]}`, "blocks.rows.1.columns.1.blocks.2.alt", "invalid_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := blocks.Decode([]byte(c.json), isUpload)
			if err == nil {
				t.Fatalf("accepted: %+v", d)
			}
			got := problems(t, err)
			if len(got) != 1 || got[0].Field != c.path || got[0].Code != c.code || got[0].Message == "" {
				t.Fatalf("got %+v, want one item at %s with code %s", got, c.path, c.code)
			}
			if !reflect.DeepEqual(d, blocks.Document{}) {
				t.Errorf("a refused document came back: %+v", d)
			}
		})
	}
}

// Every problem of a document is listed, in document order, at most 50.
func TestDecodeListsEveryProblem(t *testing.T) {
	_, err := blocks.Decode([]byte(`{"rows":[{"columns":[{"blocks":[{"type":"image","src":"x","alt":"","zoom":2},`+
		`{"type":"text","html":"<div>x</div>"},{"type":"spacer","height":2.5}]}],"x":true}]}`), isUpload)
	var got []string
	for _, f := range problems(t, err) {
		got = append(got, f.Field+" "+f.Code)
	}
	want := []string{
		"blocks.rows.0.x unrecognized_keys",
		at + ".zoom unrecognized_keys",
		at + ".src invalid_string",
		at + ".alt too_small",
		"blocks.rows.0.columns.0.blocks.1.html invalid_string",
		"blocks.rows.0.columns.0.blocks.2.height invalid_type",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	many := `{"rows":[{"columns":[{"blocks":[` + strings.TrimSuffix(strings.Repeat(`{"type":"spacer","height":1},`, 50), ",") + `]}]},` +
		`{"columns":[{"blocks":[{"type":"spacer","height":1}]}]}]}`
	_, err = blocks.Decode([]byte(many), nil)
	if n := len(problems(t, err)); n != 50 {
		t.Errorf("%d problems listed, want 50", n)
	}
}

// Good documents decode, validate, and come back from MarshalJSON in the
// shape they were sent, which decodes to the same document.
func TestDecodeAccepts(t *testing.T) {
	cases := map[string]string{
		"every block": doc(
			`{"type":"heading","text":"Hi {{ name ?? \"there\" }} & <friends>","level":3}`,
			`{"type":"text","html":"<P>Hi&nbsp;<STRONG>you</STRONG> &amp; <a HREF='mailto:help@example.com?subject=Hi%20there'>write</a><br/>{{ name }}</P> a < b"}`,
			`{"type":"image","src":"`+uploadSrc+`","alt":"{{ name ?? 'A' }} shirt","href":"https://example.com/?a=1&b=2"}`,
			`{"type":"button","text":"Go","href":"{{unsubscribeUrl}}"}`,
			`{"type":"divider"}`,
			`{"type":"spacer","height":4}`,
			`{"type":"spacer","height":120.0}`,
			`{"type":"footer","text":""}`),
		"image without href":   doc(`{"type":"image","src":"` + uploadSrc + `","alt":"A shirt"}`),
		"image href null":      doc(`{"type":"image","src":"` + uploadSrc + `","alt":"A shirt","href":null}`),
		"image href empty":     doc(`{"type":"image","src":"` + uploadSrc + `","alt":"A shirt","href":""}`),
		"link with variables":  doc(`{"type":"button","text":"Go","href":"https://example.com/u/{{ id }}?e={{ email | url_encode }}"}`),
		"mailto with variable": doc(`{"type":"button","text":"Go","href":"mailto:{{ email }}"}`),
		"footer of lines":      doc(`{"type":"footer","text":"Acme\r\n1 Main St\n{{ company ?? 'Acme' }}"}`),
		"empty columns":        `{"rows":[{"columns":[{"blocks":[]},{"blocks":[]},{"blocks":[]}]}]}`,
		"100 rows of 3":        rows(100, 3),
		"300 blocks":           rows(6, 50),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := blocks.Decode([]byte(raw), isUpload)
			if err != nil {
				t.Fatal(err)
			}
			if err := blocks.Validate(d, isUpload); err != nil {
				t.Fatalf("Validate refuses what Decode took: %v", err)
			}
			again, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			d2, err := blocks.Decode(again, isUpload)
			if err != nil || !reflect.DeepEqual(d, d2) {
				t.Fatalf("round trip through %s: %v\n%+v\n%+v", again, err, d, d2)
			}
		})
	}
}

// isUpload is asked once per image source; its error is the answer's, not
// a 422.
func TestDecodeAsksAboutUploads(t *testing.T) {
	img := `{"type":"image","src":"` + uploadSrc + `","alt":"x"}`
	calls := 0
	counting := func(src string) (bool, error) { calls++; return isUpload(src) }
	if _, err := blocks.Decode([]byte(doc(img, img, img)), counting); err != nil || calls != 1 {
		t.Errorf("err %v, %d calls for one source, want 1", err, calls)
	}
	down := errors.New("database is closed")
	_, err := blocks.Decode([]byte(doc(img, `{"type":"heading"}`)), func(string) (bool, error) { return false, down })
	if !errors.Is(err, down) {
		t.Errorf("got %v, want the check's error", err)
	}
	if _, isAPI := apierr.AsError(err); isAPI {
		t.Errorf("a failed check answered as a client's error: %v", err)
	}
}

func TestMarshalJSONShape(t *testing.T) {
	d := oneColumn(
		blocks.Block{Type: blocks.Image, Src: uploadSrc, Alt: "<x>", Text: "ignored"},
		blocks.Block{Type: blocks.Spacer, Height: 8},
		blocks.Block{Type: blocks.Divider})
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rows":[{"columns":[{"blocks":[{"type":"image","src":"` + uploadSrc + `","alt":"\u003cx\u003e"},` +
		`{"type":"spacer","height":8},{"type":"divider"}]}]}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Validate applies Decode's rules to a document made in Go; nil isUpload
// takes any http or https image.
func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		doc  blocks.Document
		path string
	}{
		{"no rows", blocks.Document{}, "blocks.rows"},
		{"no columns", blocks.Document{Rows: []blocks.Row{{}}}, "blocks.rows.0.columns"},
		{"no type", oneColumn(blocks.Block{}), at + ".type"},
		{"bad level", oneColumn(blocks.Block{Type: blocks.Heading, Text: "x"}), at + ".level"},
		{"bad html", oneColumn(blocks.Block{Type: blocks.Text, HTML: "<script>x</script>"}), at + ".html"},
		{"bad src", oneColumn(blocks.Block{Type: blocks.Image, Src: "/x.png", Alt: "x"}), at + ".src"},
	}
	for _, c := range cases {
		got := problems(t, blocks.Validate(c.doc, nil))
		if len(got) != 1 || got[0].Field != c.path {
			t.Errorf("%s: got %+v, want one item at %s", c.name, got, c.path)
		}
	}
	if err := blocks.Validate(oneColumn(blocks.Block{Type: blocks.Image, Src: "https://cdn.example/x.png", Alt: "x"}), nil); err != nil {
		t.Errorf("nil isUpload: %v", err)
	}
}

func TestUploadName(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef"
	cases := []struct {
		base, src, want string
	}{
		{"https://herald.test", "https://herald.test/uploads/" + hex + ".png", hex + ".png"},
		{"https://herald.test/", "https://herald.test/uploads/" + hex + ".webp", hex + ".webp"},
		{"https://mail.example/herald", "https://mail.example/herald/uploads/" + hex + ".jpg", hex + ".jpg"},
		{"https://herald.test", "https://herald.test/uploads/" + hex + ".svg", ""},
		{"https://herald.test", "https://herald.test/uploads/" + strings.ToUpper(hex) + ".png", ""},
		{"https://herald.test", "https://herald.test/uploads/" + hex[1:] + ".png", ""},
		{"https://herald.test", "https://herald.test/uploads/" + hex + ".png?x=1", ""},
		{"https://herald.test", "https://herald.test/uploads/../" + hex + ".png", ""},
		{"https://herald.test", "https://other.test/uploads/" + hex + ".png", ""},
		{"https://herald.test", "http://herald.test/uploads/" + hex + ".png", ""},
		{"", "/uploads/" + hex + ".png", ""},
	}
	for _, c := range cases {
		name, ok := blocks.UploadName(c.base, c.src)
		if name != c.want || ok != (c.want != "") {
			t.Errorf("UploadName(%q, %q) = %q, %v; want %q", c.base, c.src, name, ok, c.want)
		}
	}
}
