package blocks

import (
	"strconv"
	"strings"
)

// Each block is one table row of its column: <tr><td> with the block's
// styles inline, since many clients drop or ignore classes. Every value
// passes the check Validate makes before it is written, so a document
// built in Go and never validated cannot put markup or a script into the
// email either.

// headingSize is the font size of a heading level, 1 to 3.
func headingSize(level int) string {
	switch level {
	case 1:
		return "28px"
	case 2:
		return "22px"
	}
	return "18px"
}

func writeBlock(b *strings.Builder, bl Block, content int, lang string) {
	switch bl.Type {
	case Heading:
		writeHeading(b, bl)
	case Text:
		b.WriteString(`<tr><td style="padding:8px ` + px(blockPadding) + `;font-family:` + fontStack +
			`;font-size:16px;line-height:1.5;color:` + textColor + `;` + wrapStyle + `">`)
		if out, problem := textHTML(bl.HTML); problem == "" {
			b.WriteString(out)
		} else {
			writeInert(b, bl.HTML, false)
		}
		b.WriteString("</td></tr>\n")
	case Image:
		writeImage(b, bl, content)
	case Button:
		writeButton(b, bl)
	case Divider:
		b.WriteString(`<tr><td style="padding:12px ` + px(blockPadding) + `">` +
			`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>` +
			`<td style="border-top:1px solid ` + ruleColor + `;font-size:0;line-height:0">&nbsp;</td>` +
			"</tr></table></td></tr>\n")
	case Spacer:
		h := strconv.Itoa(min(max(bl.Height, MinSpacer), MaxSpacer))
		b.WriteString(`<tr><td height="` + h + `" style="height:` + h + `px;line-height:` + h + `px;font-size:0">&nbsp;</td></tr>` + "\n")
	case Footer:
		writeFooter(b, bl, lang)
	}
}

func writeHeading(b *strings.Builder, bl Block) {
	level := min(max(bl.Level, MinLevel), MaxLevel)
	tag := "h" + strconv.Itoa(level)
	b.WriteString(`<tr><td style="padding:8px ` + px(blockPadding) + `"><` + tag + ` style="margin:0;font-family:` + fontStack +
		`;font-size:` + headingSize(level) + `;line-height:1.25;font-weight:700;color:` + headingColor + `;` + wrapStyle + `">`)
	writeLine(b, bl.Text, false, false)
	b.WriteString("</" + tag + "></td></tr>\n")
}

// writeImage writes an image as wide as its column's content (the width
// attribute for Outlook, max-width elsewhere, height in proportion), its
// alt text styled like text for a client that shows no images.
func writeImage(b *strings.Builder, bl Block, content int) {
	if srcProblem(bl.Src) != "" {
		return
	}
	w := strconv.Itoa(content)
	b.WriteString(`<tr><td align="center" style="padding:8px ` + px(blockPadding) + `">`)
	if bl.Href != "" {
		b.WriteString(`<a href="`)
		writeHref(b, bl.Href)
		b.WriteString(`" style="text-decoration:none">`)
	}
	b.WriteString(`<img src="`)
	escapeInto(b, bl.Src, true)
	b.WriteString(`" alt="`)
	writeLine(b, bl.Alt, false, true)
	b.WriteString(`" width="` + w + `" class="herald-img" style="display:block;width:100%;max-width:` + w + `px;height:auto;border:0;font-family:` +
		fontStack + `;font-size:14px;color:` + textColor + `">`)
	if bl.Href != "" {
		b.WriteString("</a>")
	}
	b.WriteString("</td></tr>\n")
}

// writeButton writes a "bulletproof" button: the colour on a table cell,
// which every client paints, and the link inside it padded to fill it.
func writeButton(b *strings.Builder, bl Block) {
	b.WriteString(`<tr><td align="center" style="padding:12px ` + px(blockPadding) + `">` +
		`<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 auto"><tr>` +
		`<td align="center" bgcolor="` + accentColor + `" style="border-radius:6px;background-color:` + accentColor + `">` +
		`<a href="`)
	writeHref(b, bl.Href)
	b.WriteString(`" style="display:inline-block;padding:12px 24px;font-family:` + fontStack +
		`;font-size:16px;font-weight:700;line-height:1.25;color:#ffffff;text-decoration:none;border-radius:6px;` + wrapStyle + `">`)
	writeLine(b, bl.Text, false, false)
	b.WriteString("</a></td></tr></table></td></tr>\n")
}

// writeFooter writes the footer's text, its lines kept, and under it the
// unsubscribe link, which app/render fills in with the recipient's own.
func writeFooter(b *strings.Builder, bl Block, lang string) {
	b.WriteString(`<tr><td align="center" style="padding:16px ` + px(blockPadding) + `;font-family:` + fontStack +
		`;font-size:12px;line-height:1.5;color:` + mutedColor + `;` + wrapStyle + `">`)
	text := strings.ReplaceAll(strings.ReplaceAll(bl.Text, "\r\n", "\n"), "\r", "\n")
	if strings.TrimSpace(text) != "" {
		for i, line := range strings.Split(text, "\n") {
			if i > 0 {
				b.WriteString("<br>\n")
			}
			writeLine(b, line, true, false)
		}
		b.WriteString("<br>\n")
	}
	b.WriteString(`<a href="{{unsubscribeUrl}}" style="color:` + mutedColor + `;text-decoration:underline">` +
		unsubscribeWords[lang] + "</a></td></tr>\n")
}

// writeLine writes a plain-text value, or, when it fails the check
// Validate makes, shows it inert.
func writeLine(b *strings.Builder, s string, multiline, inAttr bool) {
	if textProblem(s, multiline, inAttr) == "" {
		writeText(b, s, inAttr)
	} else {
		writeInert(b, s, inAttr)
	}
}

// writeHref writes a link's URL, or "#" for one that fails its check.
func writeHref(b *strings.Builder, href string) {
	if linkProblem(href) == "" {
		writeText(b, href, true)
	} else {
		b.WriteString("#")
	}
}
