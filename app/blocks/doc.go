// Package blocks is the block email editor's document: its Go types, the
// strict decoding and validation of its JSON, and its rendering to the
// HTML and the text of an email. It is a leaf (it imports app/apierr and
// nothing else of app), so that the API, the dashboard's preview and the
// send path all get the same bytes from one renderer.
//
// # The document
//
//	{"rows": [{"columns": [{"blocks": [Block, ...]}, ...]}, ...]}
//
// A row has 1 to 3 columns; a block has a "type" and that type's fields
// only (see Block). Decode refuses, as a 422 item at the path inside the
// request's "blocks" field ("blocks.rows.0.columns.1.blocks.2.alt", dots
// and indexes as everywhere in the API): an unknown field or block type,
// a value of the wrong JSON type, a missing required field, a value out
// of its bounds (limits.go), and a text block's markup outside its subset
// (texthtml.go). Nothing is stripped or repaired: what the author sees in
// the editor is what is sent.
//
// # Liquid
//
// Text fields and links may hold {{ }} output tags, kept as written for
// app/render, which runs over the rendered body at send time and escapes
// every value it puts in. {% %} tags and {{{ }}} raw output are refused
// (liquid.go).
//
// # The rendering
//
// Render writes a whole HTML document for email clients, not browsers:
//
//   - Tables with role="presentation" for layout and inline styles on
//     every element, since many clients drop <style> or classes; the
//     <style> block holds only resets and one media query.
//   - A 600-pixel container that is fluid below it (width 100%,
//     max-width 600px), centred on a grey page.
//   - Columns by the fluid-hybrid method: inline-blocks at most their
//     share of the row, which wrap onto lines of their own when the screen
//     is narrower, without a media query (Gmail's app for other accounts
//     has none); the media query then makes stacked columns and their
//     images full-width where it is supported; Outlook for Windows gets
//     fixed table cells in conditional comments.
//   - Images as wide as their column (width attribute for Outlook,
//     max-width and height:auto elsewhere), always with their alt text.
//   - Buttons as a coloured table cell around a padded link ("bulletproof").
//   - Long words and URLs break instead of widening a phone's screen.
//   - No script, no hidden text, no preheader, no tracking: the open pixel
//     and link rewriting are the send path's.
//   - Deterministic: the same document and Options give the same bytes.
//
// A document built in Go and never validated still renders safely: each
// value passes the same check before it is written, and one that fails is
// shown as escaped text, a link as "#", an image not at all.
//
// RenderText writes the matching text/plain part; see its comment for why
// the send path should use it rather than the text app/message derives.
package blocks
