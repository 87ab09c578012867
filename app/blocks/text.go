package blocks

import (
	"strings"

	"golang.org/x/net/html"
)

// RenderText writes a document as the text/plain alternative of its
// email, for app/render's Text mode ({{ }} tags kept as written, nothing
// escaped): the title, then each block as a paragraph in reading order
// (rows top to bottom, columns left to right), a link as "text (url)" as
// app/message's HTML-to-text does, a linked image as its URL, a divider
// as a line of dashes and the footer with its unsubscribe link. Lines are
// not wrapped: a {{ }} tag cut across lines would no longer be a tag.
//
// It is the text part to send with Render's HTML, made to hold the words
// a filter reads in the HTML and no others: SpamAssassin scores an HTML
// part with words the text lacks (MPART_ALT_DIFF: the text app/message
// derives from HTML leaves out the <title>) and a text part with three
// times the HTML's words (MPART_ALT_DIFF_COUNT). So an image's alt text,
// which SpamAssassin does not read in the HTML, is left out.
func RenderText(d Document, o Options) string {
	lang := language(o.Lang)
	var paras []string
	if o.Title != "" && textProblem(o.Title, false, false) == "" {
		paras = append(paras, o.Title)
	}
	for _, r := range d.Rows {
		for _, c := range r.Columns {
			for _, b := range c.Blocks {
				paras = append(paras, blockText(b, lang)...)
			}
		}
	}
	var out []string
	for _, p := range paras {
		lines := strings.Split(strings.TrimSpace(p), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
		if p = strings.Join(lines, "\n"); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n\n") + "\n"
}

// blockText is a block's paragraphs; a value that fails its check is left
// out.
func blockText(b Block, lang string) []string {
	line := func(s string, multiline bool) string {
		if textProblem(s, multiline, false) != "" {
			return ""
		}
		return s
	}
	switch b.Type {
	case Heading:
		return []string{line(b.Text, false)}
	case Text:
		return htmlParagraphs(b.HTML)
	case Image:
		if srcProblem(b.Src) != "" || b.Href == "" {
			return nil
		}
		return []string{linked("", b.Href)}
	case Button:
		return []string{linked(line(b.Text, false), b.Href)}
	case Divider:
		return []string{strings.Repeat("-", 40)}
	case Footer:
		text := strings.ReplaceAll(strings.ReplaceAll(line(b.Text, true), "\r\n", "\n"), "\r", "\n")
		return []string{text + "\n" + unsubscribeWords[lang] + " ({{unsubscribeUrl}})"}
	}
	return nil
}

// linked is a link's text followed by its URL in brackets, or the text
// alone when the URL is missing, bad or the same as the text.
func linked(text, href string) string {
	if href == "" || linkProblem(href) != "" || strings.TrimSpace(text) == href {
		return text
	}
	if strings.TrimSpace(text) == "" {
		return href
	}
	return text + " (" + href + ")"
}

// htmlParagraphs is a text block's source, which textHTML accepted, as
// text: each p a paragraph, each br a line break, runs of white space as
// one space (as a browser shows them) except inside {{ }} tags, and each
// link followed by its URL.
func htmlParagraphs(src string) []string {
	if _, problem := textHTML(src); problem != "" {
		return nil
	}
	var paras []string
	var cur, link strings.Builder
	var href string
	inLink := false
	flush := func() {
		paras = append(paras, cur.String())
		cur.Reset()
	}
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			flush()
			return paras
		}
		name, _ := z.TagName()
		switch {
		case tt == html.TextToken:
			w := &cur
			if inLink {
				w = &link
			}
			writeCollapsed(w, string(z.Text()))
		case string(name) == "p":
			flush()
		case string(name) == "br" && inLink:
			link.WriteString("\n")
		case string(name) == "br":
			cur.WriteString("\n")
		case string(name) == "a" && tt == html.StartTagToken:
			_, val, _ := z.TagAttr()
			href, inLink = string(val), true
			link.Reset()
		case string(name) == "a":
			inLink = false
			cur.WriteString(linked(link.String(), href))
		}
	}
}

// writeCollapsed writes s with each run of HTML white space outside its
// {{ }} tags as one space, and none after a space or line break already
// written.
func writeCollapsed(w *strings.Builder, s string) {
	for s != "" {
		open := strings.Index(s, "{{")
		plain := s
		if open >= 0 {
			plain = s[:open]
		}
		for _, r := range plain {
			if !isHTMLSpace(r) {
				w.WriteRune(r)
			} else if out := w.String(); out != "" && !isHTMLSpace(rune(out[len(out)-1])) {
				w.WriteByte(' ')
			}
		}
		if open < 0 {
			return
		}
		end := open + 2 + strings.Index(s[open+2:], "}}") + 2
		w.WriteString(s[open:end])
		s = s[end:]
	}
}

func isHTMLSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
}
