package blocks_test

import (
	"testing"

	"github.com/heraldmail/herald/app/blocks"
)

// uploadBase is the base URL of the Herald that the test documents'
// images were uploaded to; uploadSrc is one upload's URL.
const (
	uploadBase = "https://herald.test"
	uploadSrc  = uploadBase + "/uploads/0123456789abcdef0123456789abcdef.png"
)

// isUpload accepts the uploads the tests name, as the lead's func looks
// names up among a project's uploads.
func isUpload(src string) (bool, error) {
	name, ok := blocks.UploadName(uploadBase, src)
	return ok && name == "0123456789abcdef0123456789abcdef.png", nil
}

// standardBlock is one block of each type as a marketer would write it.
type standardBlock struct {
	name  string
	block blocks.Block
}

func standardBlocks(src string) []standardBlock {
	return []standardBlock{
		{"heading", blocks.Block{Type: blocks.Heading, Text: "Our spring collection is here", Level: 1}},
		{"text", blocks.Block{Type: blocks.Text, HTML: `<p>Hi {{ name ?? "there" }},</p>` +
			`<p>The new season's linen shirts and light jackets are in the shop, in <b>six colours</b> and every size. ` +
			`Orders placed this week ship <em>for free</em>. <a href="https://example.com/spring">See what is new</a>.</p>`}},
		{"image", blocks.Block{Type: blocks.Image, Src: src, Alt: "A linen shirt in sand on a wooden hanger",
			Href: "https://example.com/spring/shirts"}},
		{"button", blocks.Block{Type: blocks.Button, Text: "Shop the collection", Href: "https://example.com/spring"}},
		{"divider", blocks.Block{Type: blocks.Divider}},
		{"spacer", blocks.Block{Type: blocks.Spacer, Height: 32}},
		{"footer", blocks.Block{Type: blocks.Footer, Text: "Acme Shop, 1 Market Street, Springfield\n" +
			"You receive this email because you subscribed to our news."}},
	}
}

// oneColumn is a document of one row and column holding bs.
func oneColumn(bs ...blocks.Block) blocks.Document {
	return blocks.Document{Rows: []blocks.Row{{Columns: []blocks.Column{{Blocks: bs}}}}}
}

// allTogether is every standard block in one column, then a row of two
// columns and one of three, so that layouts of each width are rendered.
func allTogether(src string) blocks.Document {
	var all []blocks.Block
	for _, s := range standardBlocks(src) {
		all = append(all, s.block)
	}
	std := standardBlocks(src)
	heading, text, image, button := std[0].block, std[1].block, std[2].block, std[3].block
	small := blocks.Block{Type: blocks.Heading, Text: "Linen shirts", Level: 3}
	doc := oneColumn(all[:len(all)-1]...)
	doc.Rows = append(doc.Rows,
		blocks.Row{Columns: []blocks.Column{{Blocks: []blocks.Block{image, small, text}}, {Blocks: []blocks.Block{heading, button}}}},
		blocks.Row{Columns: []blocks.Column{{Blocks: []blocks.Block{image, small}}, {Blocks: []blocks.Block{image, small}},
			{Blocks: []blocks.Block{image, small, button}}}},
		blocks.Row{Columns: []blocks.Column{{Blocks: all[len(all)-1:]}}})
	return doc
}

// standardDocuments are the documents the render tests check: each
// standard block alone and all of them together, named.
func standardDocuments(src string) ([]string, []blocks.Document) {
	var names []string
	var docs []blocks.Document
	for _, s := range standardBlocks(src) {
		names = append(names, s.name)
		docs = append(docs, oneColumn(s.block))
	}
	return append(names, "all"), append(docs, allTogether(src))
}

func mustValid(t *testing.T, d blocks.Document) {
	t.Helper()
	if err := blocks.Validate(d, nil); err != nil {
		t.Fatalf("a standard document does not validate: %v", err)
	}
}
