package blocks

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Document is a template built from blocks: rows of 1 to 3 columns, each
// column a list of blocks from top to bottom.
type Document struct {
	Rows []Row
}

// Row is one band of the email, its columns side by side on a wide screen
// and stacked on a narrow one.
type Row struct {
	Columns []Column
}

// Column holds blocks from top to bottom; it may be empty.
type Column struct {
	Blocks []Block
}

// Type names a kind of block.
type Type string

// The kinds of block.
const (
	Heading Type = "heading"
	Text    Type = "text"
	Image   Type = "image"
	Button  Type = "button"
	Divider Type = "divider"
	Spacer  Type = "spacer"
	Footer  Type = "footer"
)

// Block is one block. Only the fields of its Type mean anything:
//
//	heading  Text, Level (1-3)
//	text     HTML (p, br, b, strong, i, em and a[href] only)
//	image    Src (an upload of the project), Alt, Href (optional)
//	button   Text, Href
//	divider  -
//	spacer   Height (4-120 pixels)
//	footer   Text (rendered with the unsubscribe link)
type Block struct {
	Type   Type
	Text   string
	Level  int
	HTML   string
	Src    string
	Alt    string
	Href   string
	Height int
}

// blockFields are the JSON fields of each type besides "type", required
// ones first; fieldOptional marks the ones that may be left out.
var blockFields = map[Type][]string{
	Heading: {"text", "level"},
	Text:    {"html"},
	Image:   {"src", "alt", "href"},
	Button:  {"text", "href"},
	Divider: {},
	Spacer:  {"height"},
	Footer:  {"text"},
}

// typeNames lists the types in the order error messages name them.
const typeNames = "heading, text, image, button, divider, spacer, footer"

func optionalField(t Type, field string) bool { return t == Image && field == "href" }

// MarshalJSON writes the document in the shape Decode reads:
// {"rows":[{"columns":[{"blocks":[...]}]}]}, each block with "type" first
// and only its own fields, so that the API answers with what it stored.
func (d Document) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"rows":[`)
	for i, r := range d.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"columns":[`)
		for j, c := range r.Columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"blocks":[`)
			for k, bl := range c.Blocks {
				if k > 0 {
					b.WriteByte(',')
				}
				bl.appendJSON(&b)
			}
			b.WriteString(`]}`)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
}

func (bl Block) appendJSON(b *bytes.Buffer) {
	b.WriteString(`{"type":`)
	writeJSONString(b, string(bl.Type))
	for _, f := range blockFields[bl.Type] {
		switch f {
		case "text":
			b.WriteString(`,"text":`)
			writeJSONString(b, bl.Text)
		case "level":
			b.WriteString(`,"level":` + strconv.Itoa(bl.Level))
		case "html":
			b.WriteString(`,"html":`)
			writeJSONString(b, bl.HTML)
		case "src":
			b.WriteString(`,"src":`)
			writeJSONString(b, bl.Src)
		case "alt":
			b.WriteString(`,"alt":`)
			writeJSONString(b, bl.Alt)
		case "href":
			if bl.Href != "" || !optionalField(bl.Type, f) {
				b.WriteString(`,"href":`)
				writeJSONString(b, bl.Href)
			}
		case "height":
			b.WriteString(`,"height":` + strconv.Itoa(bl.Height))
		}
	}
	b.WriteByte('}')
}

// writeJSONString writes s as a JSON string. encoding/json escapes <, >
// and & as \u003c and friends, which is what an answer embedded in a page
// wants; a string cannot fail to encode.
func writeJSONString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s)
	b.Write(out)
}
