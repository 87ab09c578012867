package blocks

import (
	"errors"
	"io"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// A text block's html is a small, fixed subset of HTML: p, br, b, strong,
// i, em and a with an href and nothing else. Anything outside it (another
// element, any other attribute, a comment, a doctype, an element left open
// or closed out of order) is refused with the reason, never stripped: the
// editor shows the author what it will send, and stripping would send
// something else. The accepted source is written out again rather than
// copied: elements in lower case, entities decoded and escaped once, and
// the inline styles an email needs added to p and a, so that what reaches
// a mail client is markup this package wrote.

// textElements are the elements a text block may hold; inline ones may
// nest in each other and sit in a p, a p only at the top.
var textElements = map[string]bool{"p": true, "br": true, "b": true, "strong": true, "i": true, "em": true, "a": true}

// textHTML checks a text block's source and returns its rendering, or the
// first problem with it.
func textHTML(src string) (string, string) {
	var b strings.Builder
	b.Grow(len(src) + len(src)/4)
	var open []string // the elements open, innermost last
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if !errors.Is(z.Err(), io.EOF) {
				return "", "Not readable as HTML"
			}
			if len(open) > 0 {
				return "", "Unclosed <" + open[len(open)-1] + ">"
			}
			return b.String(), ""
		case html.TextToken:
			text := string(z.Text())
			if p := textProblem(text, true, false); p != "" {
				return "", p
			}
			writeText(&b, text, false)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			el := string(name)
			if p := startProblem(el, tt == html.SelfClosingTagToken, open); p != "" {
				return "", p
			}
			href, p := tagAttrs(z, el, hasAttr)
			if p != "" {
				return "", p
			}
			writeStart(&b, el, href)
			if el != "br" {
				open = append(open, el)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			el := string(name)
			if len(open) == 0 || open[len(open)-1] != el {
				return "", endProblem(el, open)
			}
			open = open[:len(open)-1]
			b.WriteString("</" + el + ">")
		case html.CommentToken:
			return "", "Comments are not allowed in a text block"
		default:
			return "", "A doctype is not allowed in a text block"
		}
	}
}

// startProblem checks a start tag against the allowed elements and where
// each may stand.
func startProblem(el string, selfClosing bool, open []string) string {
	switch {
	case !textElements[el]:
		return "<" + el + "> is not allowed in a text block: use p, br, b, strong, i, em or a"
	case selfClosing && el != "br":
		return "<" + el + "/> is not an element: write <" + el + "></" + el + ">"
	case el == "p" && len(open) > 0:
		return "<p> cannot stand inside <" + open[len(open)-1] + ">"
	case el == "a" && slices.Contains(open, "a"):
		return "<a> cannot stand inside another <a>"
	case len(open) >= MaxTextDepth:
		return "Elements nest too deeply (at most 10)"
	}
	return ""
}

func endProblem(el string, open []string) string {
	switch {
	case el == "br":
		return "</br> is not an element: write <br>"
	case !textElements[el]:
		return "</" + el + "> is not allowed in a text block: use p, br, b, strong, i, em or a"
	case len(open) == 0 || !slices.Contains(open, el):
		return "</" + el + "> closes nothing"
	}
	return "</" + el + "> closes <" + el + "> while <" + open[len(open)-1] + "> is still open"
}

// tagAttrs reads a start tag's attributes: an a needs an href, which must
// be a link; no other element takes any. (The tokenizer drops a repeated
// attribute, keeping the first, as browsers do.)
func tagAttrs(z *html.Tokenizer, el string, hasAttr bool) (href, problem string) {
	seen := false
	for hasAttr {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		if el != "a" || string(key) != "href" {
			return "", "The attribute " + string(key) + " is not allowed on <" + el + ">: only <a> takes one, href"
		}
		seen, href = true, string(val)
		if p := linkProblem(href); p != "" {
			return "", "href: " + p
		}
	}
	if el == "a" && !seen {
		return "", "<a> needs an href"
	}
	return href, ""
}

// The inline styles of a text block's elements: a paragraph's margins
// differ between mail clients unless set, and a link's colour and
// underline would otherwise be the client's.
const (
	paragraphStyle = "margin:0 0 12px 0"
	linkStyle      = "color:#1d4ed8;text-decoration:underline"
)

func writeStart(b *strings.Builder, el, href string) {
	switch el {
	case "p":
		b.WriteString(`<p style="` + paragraphStyle + `">`)
	case "a":
		b.WriteString(`<a href="`)
		writeText(b, href, true)
		b.WriteString(`" style="` + linkStyle + `">`)
	default:
		b.WriteString("<" + el + ">")
	}
}
