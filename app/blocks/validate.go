package blocks

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
)

// Field is the request field a document arrives in: every problem's path
// starts with it, as in "blocks.rows.0.columns.1.blocks.2.alt".
const Field = "blocks"

// IsUpload reports whether src is the URL of one of the project's
// uploads (UploadName reads the name from it). An error is a failure to
// find out, such as the database's, not a no.
type IsUpload func(src string) (bool, error)

// Validate checks a document made or changed in Go against the rules
// Decode applies to JSON (Decode calls the same checks). isUpload is asked
// once for each image source; nil accepts any http or https URL, for a
// document that was checked when it was stored. The error is an
// *apierr.Error of kind KindValidation, or isUpload's error wrapped.
func Validate(d Document, isUpload IsUpload) error {
	p := problems{isUpload: isUpload}
	p.count(Field+".rows", len(d.Rows), 1, MaxRows, "rows")
	total := 0
	for i, r := range d.Rows {
		rowPath := path(Field, "rows", i)
		p.count(rowPath+".columns", len(r.Columns), 1, MaxColumns, "columns")
		for j, c := range r.Columns {
			colPath := path(rowPath, "columns", j)
			p.count(colPath+".blocks", len(c.Blocks), 0, MaxColumnBlocks, "blocks")
			for k, b := range c.Blocks {
				blockPath := path(colPath, "blocks", k)
				if total++; total == MaxBlocks+1 {
					p.add(blockPath, "too_big", fmt.Sprintf("A document holds at most %d blocks", MaxBlocks), nil)
				}
				p.block(blockPath, b)
			}
		}
	}
	return p.err()
}

// problems collects a document's validation failures, at most maxProblems;
// n counts them all. It asks isUpload about each image source once, and
// keeps the first error of asking.
type problems struct {
	v        apierr.Validation
	n        int
	isUpload IsUpload
	uploads  map[string]bool
	failed   error
}

func (p *problems) add(field, code, message string, received any) {
	if p.n++; p.n <= maxProblems {
		p.v.Add(field, code, message, received)
	}
}

func (p *problems) err() error {
	if p.failed != nil {
		return p.failed
	}
	return p.v.Err()
}

// upload reports whether src is one of the project's uploads; true when
// there is no isUpload to ask or asking failed (err says so then).
func (p *problems) upload(src string) bool {
	if p.isUpload == nil || p.failed != nil {
		return true
	}
	if known, asked := p.uploads[src]; asked {
		return known
	}
	known, err := p.isUpload(src)
	if err != nil {
		p.failed = fmt.Errorf("blocks: check an image's upload: %w", err)
		return true
	}
	if p.uploads == nil {
		p.uploads = map[string]bool{}
	}
	p.uploads[src] = known
	return known
}

// count checks the length of a list.
func (p *problems) count(field string, n, minimum, maximum int, what string) {
	switch {
	case n < minimum:
		p.add(field, "too_small", fmt.Sprintf("Give at least %d %s", minimum, singular(what, minimum)), n)
	case n > maximum:
		p.add(field, "too_big", fmt.Sprintf("At most %d %s", maximum, what), n)
	}
}

func singular(what string, n int) string {
	if n == 1 {
		return strings.TrimSuffix(what, "s")
	}
	return what
}

// block checks the fields of one block of a known or unknown type.
func (p *problems) block(at string, b Block) {
	switch b.Type {
	case Heading:
		p.line(at+".text", b.Text, 1, MaxHeadingChars, false, false)
		p.number(at+".level", b.Level, MinLevel, MaxLevel)
	case Text:
		p.textHTML(at+".html", b.HTML)
	case Image:
		if msg := srcProblem(b.Src); msg != "" {
			p.add(at+".src", "invalid_string", msg, nil)
		} else if !p.upload(b.Src) {
			p.add(at+".src", "upload_not_found", "Not an image uploaded to this project (POST /uploads/image)", b.Src)
		}
		p.line(at+".alt", b.Alt, 1, MaxAltChars, false, true)
		if b.Href != "" {
			p.link(at+".href", b.Href)
		}
	case Button:
		p.line(at+".text", b.Text, 1, MaxButtonTextChars, false, false)
		p.link(at+".href", b.Href)
	case Divider:
	case Spacer:
		p.number(at+".height", b.Height, MinSpacer, MaxSpacer)
	case Footer:
		p.line(at+".text", b.Text, 0, MaxFooterChars, true, false)
	default:
		p.add(at+".type", "invalid_enum_value", "Expected one of "+typeNames, string(b.Type))
	}
}

// line checks a plain-text field: its length in characters, that it is
// not blank when required, and what it may hold (textProblem).
func (p *problems) line(field, s string, minimum, maximum int, multiline, inAttr bool) {
	switch n := utf8.RuneCountInString(s); {
	case n > maximum:
		p.add(field, "too_big", fmt.Sprintf("At most %d characters", maximum), n)
	case minimum > 0 && strings.TrimSpace(s) == "":
		p.add(field, "too_small", "Required: write some text", nil)
	default:
		if msg := textProblem(s, multiline, inAttr); msg != "" {
			p.add(field, "invalid_string", msg, nil)
		}
	}
}

func (p *problems) number(field string, n, minimum, maximum int) {
	switch {
	case n < minimum:
		p.add(field, "too_small", fmt.Sprintf("Expected %d to %d", minimum, maximum), n)
	case n > maximum:
		p.add(field, "too_big", fmt.Sprintf("Expected %d to %d", minimum, maximum), n)
	}
}

func (p *problems) link(field, s string) {
	if msg := linkProblem(s); msg != "" {
		p.add(field, "invalid_string", msg, nil)
	}
}

func (p *problems) textHTML(field, s string) {
	switch n := utf8.RuneCountInString(s); {
	case n > MaxTextHTMLChars:
		p.add(field, "too_big", fmt.Sprintf("At most %d characters", MaxTextHTMLChars), n)
	case strings.TrimSpace(s) == "":
		p.add(field, "too_small", "Required: write some text", nil)
	default:
		if _, msg := textHTML(s); msg != "" {
			p.add(field, "invalid_string", msg, nil)
		}
	}
}

// textProblem says why s cannot be written as a block's text, or "":
// control characters are refused (line breaks only where the field is
// more than one line), and so is Liquid that a block does not take.
func textProblem(s string, multiline, inAttr bool) string {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			if !multiline {
				return "Must be one line"
			}
		case r < ' ' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
			return "Control characters are not allowed"
		}
	}
	return liquidProblem(s, inAttr)
}

// path joins a validation path as app does: path("rows", 1, "columns") is
// "rows.1.columns".
func path(parts ...any) string {
	var b strings.Builder
	for i, part := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		switch v := part.(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		}
	}
	return b.String()
}
