package blocks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Decode reads a document from its JSON, strictly: an unknown field, an
// unknown block type, a value of the wrong type or out of its bounds and
// a text block's markup outside the allowed subset are each a validation
// problem at its path inside the request's "blocks" field, such as
// "blocks.rows.0.columns.1.blocks.2.alt" (at most 50 problems are listed).
// isUpload is as for Validate. The error is an *apierr.Error of kind
// KindValidation (a 422), or isUpload's error wrapped.
func Decode(raw []byte, isUpload IsUpload) (Document, error) {
	var p problems
	if len(raw) > MaxDocumentBytes {
		p.add(Field, "too_big", fmt.Sprintf("The document may be at most %d KiB of JSON", MaxDocumentBytes>>10), len(raw))
		return Document{}, p.err()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		p.add(Field, "invalid_type", "Expected a JSON object {rows: [...]}", nil)
		return Document{}, p.err()
	}
	d := decoder{p: problems{isUpload: isUpload}}
	doc := d.document(v)
	if err := d.p.err(); err != nil {
		return Document{}, err
	}
	return doc, nil
}

// decoder walks the decoded JSON, building the document and recording
// what is wrong where.
type decoder struct {
	p      problems
	blocks int // blocks seen so far, for MaxBlocks
}

func (d *decoder) document(v any) Document {
	obj, ok := d.object(Field, v)
	if !ok {
		return Document{}
	}
	d.onlyKnown(Field, obj, "rows")
	rows, ok := d.array(Field+".rows", obj["rows"])
	if !ok {
		return Document{}
	}
	d.p.count(Field+".rows", len(rows), 1, MaxRows, "rows")
	doc := Document{Rows: make([]Row, 0, min(len(rows), MaxRows))}
	for i, r := range rows {
		doc.Rows = append(doc.Rows, d.row(path(Field, "rows", i), r))
	}
	return doc
}

func (d *decoder) row(at string, v any) Row {
	obj, ok := d.object(at, v)
	if !ok {
		return Row{}
	}
	d.onlyKnown(at, obj, "columns")
	cols, ok := d.array(at+".columns", obj["columns"])
	if !ok {
		return Row{}
	}
	d.p.count(at+".columns", len(cols), 1, MaxColumns, "columns")
	row := Row{Columns: make([]Column, 0, min(len(cols), MaxColumns))}
	for j, c := range cols {
		row.Columns = append(row.Columns, d.column(path(at, "columns", j), c))
	}
	return row
}

func (d *decoder) column(at string, v any) Column {
	obj, ok := d.object(at, v)
	if !ok {
		return Column{}
	}
	d.onlyKnown(at, obj, "blocks")
	list, ok := d.array(at+".blocks", obj["blocks"])
	if !ok {
		return Column{}
	}
	d.p.count(at+".blocks", len(list), 0, MaxColumnBlocks, "blocks")
	col := Column{Blocks: make([]Block, 0, min(len(list), MaxColumnBlocks))}
	for k, b := range list {
		blockPath := path(at, "blocks", k)
		if d.blocks++; d.blocks == MaxBlocks+1 {
			d.p.add(blockPath, "too_big", fmt.Sprintf("A document holds at most %d blocks", MaxBlocks), nil)
		}
		col.Blocks = append(col.Blocks, d.block(blockPath, b))
	}
	return col
}

// block reads one block's fields by its type, then checks their values
// with the rules Validate applies, once their types are right.
func (d *decoder) block(at string, v any) Block {
	obj, ok := d.object(at, v)
	if !ok {
		return Block{}
	}
	t, ok := d.blockType(at+".type", obj["type"])
	if !ok {
		return Block{}
	}
	fields := blockFields[t]
	d.onlyKnown(at, obj, append([]string{"type"}, fields...)...)
	before := d.p.n
	b := Block{Type: t}
	for _, f := range fields {
		fieldPath := at + "." + f
		switch f {
		case "level":
			b.Level = d.integer(fieldPath, obj[f])
		case "height":
			b.Height = d.integer(fieldPath, obj[f])
		default:
			s := d.str(fieldPath, obj[f], !optionalField(t, f))
			switch f {
			case "text":
				b.Text = s
			case "html":
				b.HTML = s
			case "src":
				b.Src = s
			case "alt":
				b.Alt = s
			case "href":
				b.Href = s
			}
		}
	}
	if d.p.n == before {
		d.p.block(at, b)
	}
	return b
}

func (d *decoder) blockType(at string, v any) (Type, bool) {
	s, ok := v.(string)
	if !ok {
		d.typeProblem(at, "a block type ("+typeNames+")", v)
		return "", false
	}
	if _, known := blockFields[Type(s)]; !known {
		d.p.add(at, "invalid_enum_value", "Expected one of "+typeNames, s)
		return "", false
	}
	return Type(s), true
}

func (d *decoder) object(at string, v any) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		d.typeProblem(at, "an object", v)
	}
	return obj, ok
}

func (d *decoder) array(at string, v any) ([]any, bool) {
	list, ok := v.([]any)
	if !ok {
		d.typeProblem(at, "an array", v)
	}
	return list, ok
}

// str reads a string field; an optional one may be absent or null.
func (d *decoder) str(at string, v any, required bool) string {
	if v == nil && !required {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.typeProblem(at, "a string", v)
	}
	return s
}

// integer reads a whole number; one far out of any bound is clamped, so
// the range check names it too big or too small.
func (d *decoder) integer(at string, v any) int {
	n, ok := v.(json.Number)
	if !ok {
		d.typeProblem(at, "a whole number", v)
		return 0
	}
	f, err := n.Float64()
	if err != nil && !math.IsInf(f, 0) || f != math.Trunc(f) {
		d.p.add(at, "invalid_type", "Expected a whole number", n.String())
		return 0
	}
	return int(max(-1e6, min(f, 1e6)))
}

// onlyKnown reports each field of obj that is not one of known, in the
// order of their names so that the same input gives the same answer.
func (d *decoder) onlyKnown(at string, obj map[string]any, known ...string) {
	var unknown []string
	for k := range obj {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		d.p.add(at+"."+k, "unrecognized_keys", "Unknown field; expected "+listOf(known), k)
	}
}

func listOf(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// typeProblem reports a missing value or one of the wrong JSON type.
func (d *decoder) typeProblem(at, want string, v any) {
	if v == nil {
		d.p.add(at, "invalid_type", "Required: expected "+want, nil)
		return
	}
	got := jsonType(v)
	d.p.add(at, "invalid_type", "Expected "+want+", received "+got, got)
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
