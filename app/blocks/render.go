package blocks

import (
	"strconv"
	"strings"
)

// Options are what a rendering depends on besides the document.
type Options struct {
	// Lang is the project's language tag ("de", "pt-BR"). Its primary
	// subtag, when it is one of en, de, fr, es, it, nl and pt (else en),
	// names <html lang> and the words of the footer's unsubscribe link.
	Lang string
	// Title is the <title> of the document: the email's subject as the
	// template has it, {{ }} variables kept (app/render fills them in).
	// Screen readers announce it when a message opens; empty leaves the
	// element out.
	Title string
}

// The layout's measures in pixels: a 600-pixel container; each row pads
// its columns by rowPadding on either side and each block its content by
// blockPadding, so a column of a row of n is (600-2*12)/n wide and its
// content 24 less (552, 264 or 168 pixels).
const (
	containerWidth = 600
	rowPadding     = 12
	blockPadding   = 12
)

// fontStack is the one typeface of the email: each client's own sans-serif.
const fontStack = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"

// Colours: the page around the email, its background, the text, the
// secondary text of the footer, the buttons' and links' blue, the rules.
const (
	pageColor    = "#f3f4f6"
	paperColor   = "#ffffff"
	headingColor = "#111827"
	textColor    = "#374151"
	mutedColor   = "#6b7280"
	accentColor  = "#1d4ed8"
	ruleColor    = "#e5e7eb"
)

// wrapStyle lets a long word (a URL) break rather than widen a narrow
// screen's layout.
const wrapStyle = "word-wrap:break-word;overflow-wrap:break-word;word-break:break-word"

// head is everything before the rows, in three parts around the title
// and the wrapper's attributes. Besides the fluid layout's media query,
// the <style> holds the resets email frameworks carry for clients' own
// quirks: text resizing on phones, Outlook's table spacing and its Times
// New Roman fallback for a font stack it does not know (the conditional
// comment), Samsung's and Apple's rewriting of addresses and dates into
// links. No rule here may hold "{{" or "{%": the body goes through
// app/render's Liquid.
const headStart = `<!DOCTYPE html>
<html lang="%LANG%" dir="ltr" xmlns="http://www.w3.org/1999/xhtml" xmlns:o="urn:schemas-microsoft-com:office:office">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="x-apple-disable-message-reformatting">
<meta name="format-detection" content="telephone=no,date=no,address=no,email=no,url=no">
<meta name="color-scheme" content="light">
<meta name="supported-color-schemes" content="light">
`

const headEnd = `<!--[if mso]><xml><o:OfficeDocumentSettings><o:AllowPNG/><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->
<!--[if mso]><style>body,table,td,h1,h2,h3,p,a{font-family:Arial,Helvetica,sans-serif!important}</style><![endif]-->
<style>
:root{color-scheme:light;supported-color-schemes:light}
html,body{margin:0 auto!important;padding:0!important;width:100%!important}
*{-ms-text-size-adjust:100%;-webkit-text-size-adjust:100%}
#MessageViewBody,#MessageWebViewDiv{width:100%!important}
table,td{mso-table-lspace:0pt!important;mso-table-rspace:0pt!important}
table{border-spacing:0!important;border-collapse:collapse!important}
img{border:0;outline:none;text-decoration:none;-ms-interpolation-mode:bicubic}
a[x-apple-data-detectors],.unstyle-auto-detected-links a,.aBn{border-bottom:0!important;cursor:default!important;color:inherit!important;text-decoration:none!important;font-size:inherit!important;font-family:inherit!important;font-weight:inherit!important;line-height:inherit!important}
.im{color:inherit!important}
@media only screen and (max-width:620px){
.herald-col{display:block!important;width:100%!important;max-width:100%!important}
.herald-img{width:100%!important;max-width:100%!important;height:auto!important}
.herald-row{padding-left:4px!important;padding-right:4px!important}
}
</style>
</head>
<body style="margin:0;padding:0;background-color:` + pageColor + `">
`

// The wrapper is the accessible email's: an article named by the title,
// with the language on it too, since Gmail drops <html> and its lang.
const wrapperEnd = ` lang="%LANG%" dir="ltr" style="background-color:` + pageColor + `">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:` + pageColor + `">
<tr>
<td align="center" style="padding:24px 0">
<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" align="center"><tr><td><![endif]-->
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;margin:0 auto;background-color:` + paperColor + `">
`

const tail = `</table>
<!--[if mso]></td></tr></table><![endif]-->
</td>
</tr>
</table>
</div>
</body>
</html>
`

// Render writes a document as a whole HTML email: tables and inline
// styles, 600 pixels wide and fluid below that, with no script and
// nothing that depends on the time or on map order, so that one document
// always gives the same bytes. Liquid {{ }} tags stay as written for
// app/render. A document that was never validated is still rendered
// safely: a value that fails its check is shown as escaped text (a link
// as "#", an image not at all) rather than acted on.
func Render(d Document, o Options) string {
	lang := language(o.Lang)
	var b strings.Builder
	b.Grow(8192 + 2048*len(d.Rows))
	b.WriteString(strings.Replace(headStart, "%LANG%", lang, 1))
	if o.Title != "" {
		b.WriteString("<title>")
		writeLine(&b, o.Title, false, false)
		b.WriteString("</title>\n")
	}
	b.WriteString(headEnd)
	b.WriteString(`<div role="article" aria-roledescription="email"`)
	// A title whose Liquid cannot stand in an attribute (double quotes)
	// names the article in <title> only.
	if o.Title != "" && textProblem(o.Title, false, true) == "" {
		b.WriteString(` aria-label="`)
		writeText(&b, o.Title, true)
		b.WriteString(`"`)
	}
	b.WriteString(strings.Replace(wrapperEnd, "%LANG%", lang, 1))
	for _, r := range d.Rows {
		writeRow(&b, r, lang)
	}
	b.WriteString(tail)
	return b.String()
}

// writeRow writes a row by the fluid-hybrid method: each column is an
// inline-block as wide as 100% of the row but at most its share of 576
// pixels, so columns sit side by side when the row is wide enough for
// all of them and wrap onto lines of their own when it is not, without a
// media query. Outlook for Windows, which knows neither inline-block nor
// max-width, gets a table of fixed cells in conditional comments. The
// row's font-size 0 removes the gaps between inline blocks.
func writeRow(b *strings.Builder, r Row, lang string) {
	n := len(r.Columns)
	if n == 0 {
		return
	}
	inner := containerWidth - 2*rowPadding
	width := strconv.Itoa(inner / n)
	b.WriteString(`<tr>
<td class="herald-row" align="center" valign="top" style="padding:8px ` + px(rowPadding) + `;font-size:0">
<!--[if mso]><table role="presentation" width="` + strconv.Itoa(inner) + `" cellpadding="0" cellspacing="0" border="0"><tr><td width="` + width + `" valign="top"><![endif]-->`)
	for i, c := range r.Columns {
		if i > 0 {
			b.WriteString(`<!--[if mso]></td><td width="` + width + `" valign="top"><![endif]-->`)
		}
		b.WriteString(`<div class="herald-col" style="display:inline-block;width:100%;max-width:` + width + `px;vertical-align:top">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
`)
		content := inner/n - 2*blockPadding
		for _, bl := range c.Blocks {
			writeBlock(b, bl, content, lang)
		}
		if len(c.Blocks) == 0 {
			b.WriteString("<tr><td></td></tr>\n")
		}
		b.WriteString("</table>\n</div>")
	}
	b.WriteString(`<!--[if mso]></td></tr></table><![endif]-->
</td>
</tr>
`)
}

func px(n int) string { return strconv.Itoa(n) + "px" }

// unsubscribeWords are the footer link's words in the languages of the
// pages a subscriber sees.
var unsubscribeWords = map[string]string{
	"en": "Unsubscribe",
	"de": "Abmelden",
	"fr": "Se désabonner",
	"es": "Darse de baja",
	"it": "Annulla l'iscrizione",
	"nl": "Afmelden",
	"pt": "Cancelar inscrição",
}

// language is the primary subtag of tag when Herald speaks it, else "en".
func language(tag string) string {
	primary, _, _ := strings.Cut(tag, "-")
	primary = strings.ToLower(primary)
	if _, ok := unsubscribeWords[primary]; ok {
		return primary
	}
	return "en"
}
