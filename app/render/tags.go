package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"

	"github.com/osteele/liquid/expressions"
	lrender "github.com/osteele/liquid/render"
)

// Herald's versions of the Liquid tags that can make a render grow: for
// and tablerow count every iteration and check the time between them,
// assign and capture measure what they bind, and capture renders into a
// buffer that stops at MaxValue. They behave as Liquid's own otherwise
// (same syntax, forloop variables, else clause, limit/offset/reversed,
// cols, break and continue).

// addTags adds Herald's tags to cfg. assign replaces Liquid's; Liquid's
// configuration refuses a second definition of a block, so preprocess
// renames for, tablerow and capture (and their end tags) to these names,
// which no template can write.
func addTags(cfg *lrender.Config) {
	cfg.AddTag("assign", assignTag)
	cfg.AddBlock(blockNames["capture"]).Compiler(captureTag)
	cfg.AddBlock(blockNames["for"]).Clause("else").Compiler(loopTag)
	cfg.AddBlock(blockNames["tablerow"]).Compiler(loopTag)
}

// blockNames are the names Herald's blocks go by, and their end tags'.
var blockNames = map[string]string{
	"for": "herald_for", "endfor": "endherald_for",
	"tablerow": "herald_tablerow", "endtablerow": "endherald_tablerow",
	"capture": "herald_capture", "endcapture": "endherald_capture",
}

// budgetOf finds the render's budget among the bindings.
func budgetOf(ctx lrender.Context) *budget {
	b, _ := ctx.Get(budgetKey).(*budget)
	if b == nil {
		// Every render binds one; a template rendered any other way has
		// no business here.
		panic(errors.New("render: no budget bound"))
	}
	return b
}

func assignTag(args string) (func(io.Writer, lrender.Context) error, error) {
	stmt, err := expressions.ParseStatement(expressions.AssignStatementSelector, args)
	if err != nil {
		return nil, err
	}
	a := stmt.Assignment
	return func(_ io.Writer, ctx lrender.Context) error {
		b := budgetOf(ctx)
		v, err := ctx.Evaluate(a.ValueFn)
		if err != nil {
			return b.result(err)
		}
		if err := b.assign(a.Variable, v); err != nil {
			return err
		}
		ctx.Set(a.Variable, v)
		return nil
	}, nil
}

func captureTag(node lrender.BlockNode) (func(io.Writer, lrender.Context) error, error) {
	name := node.Args
	return func(_ io.Writer, ctx lrender.Context) error {
		b := budgetOf(ctx)
		buf := &valueBuffer{b: b}
		if err := ctx.RenderChildren(buf); err != nil {
			return b.result(err)
		}
		s := buf.String()
		if err := b.assign(name, s); err != nil {
			return err
		}
		ctx.Set(name, s)
		return nil
	}, nil
}

// valueBuffer collects a capture's text and stops at MaxValue.
type valueBuffer struct {
	bytes.Buffer
	b *budget
}

func (w *valueBuffer) Write(p []byte) (int, error) {
	if w.Len()+len(p) > MaxValue {
		return 0, w.b.fail(errValue)
	}
	return w.Buffer.Write(p)
}

// Liquid's loop control: break and continue are tags that return these.
const forloop = "forloop"

func loopTag(node lrender.BlockNode) (func(io.Writer, lrender.Context) error, error) {
	stmt, err := expressions.ParseStatement(expressions.LoopStatementSelector, node.Args)
	if err != nil {
		return nil, err
	}
	if len(node.Clauses) > 1 {
		return nil, errors.New("for loops accept at most one else clause")
	}
	loop := stmt.Loop
	tablerow := node.Name == blockNames["tablerow"]
	return func(w io.Writer, ctx lrender.Context) error {
		b := budgetOf(ctx)
		if err := b.step(); err != nil {
			return err
		}
		list, err := loopItems(ctx, loop)
		if err != nil || list == nil {
			return b.result(err)
		}
		if list.Len() == 0 && len(node.Clauses) == 1 {
			return b.result(ctx.RenderBlock(w, node.Clauses[0]))
		}
		cols := math.MaxInt32
		if tablerow && loop.Cols != nil {
			v, err := ctx.Evaluate(loop.Cols)
			if err != nil {
				return b.result(err)
			}
			n, ok := v.(int)
			if !ok {
				return ctx.Errorf("loop cols must be an integer")
			}
			if n > 0 {
				cols = n
			}
		}
		return b.result(runLoop(w, ctx, b, loop.Variable, list, tablerow, cols))
	}, nil
}

// items is what a loop walks: Liquid's ranges are lazy, and so is this.
type items interface {
	Len() int
	Index(int) any
}

// loopItems evaluates the loop's collection with its modifiers; nil when
// there is nothing to walk.
func loopItems(ctx lrender.Context, loop expressions.Loop) (items, error) {
	v, err := ctx.Evaluate(loop.Expr)
	if err != nil || v == nil {
		return nil, err
	}
	list := itemsOf(v)
	if list == nil {
		return nil, nil
	}
	if loop.Reversed {
		list = reversed{list}
	}
	if loop.Offset != nil {
		n, err := intArg(ctx, loop.Offset, "offset")
		if err != nil {
			return nil, err
		}
		if n > 0 {
			list = window{list, min(n, list.Len()), list.Len()}
		}
	}
	if loop.Limit != nil {
		n, err := intArg(ctx, loop.Limit, "limit")
		if err != nil {
			return nil, err
		}
		if n >= 0 && n < list.Len() {
			list = window{list, 0, n}
		}
	}
	return list, nil
}

func intArg(ctx lrender.Context, e expressions.Expression, name string) (int, error) {
	v, err := ctx.Evaluate(e)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int)
	if !ok {
		return 0, ctx.Errorf("loop %s must be an integer", name)
	}
	return n, nil
}

// itemsOf makes a walkable list of a value as Liquid does: ranges and
// lists in order, a map as [key, value] pairs, anything else not at all.
func itemsOf(v any) items {
	if it, ok := v.(items); ok {
		return it
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Slice:
		return reflectItems{rv}
	case reflect.Map:
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		pairs := make([]any, len(keys))
		for i, k := range keys {
			pairs[i] = []any{k.Interface(), rv.MapIndex(k).Interface()}
		}
		return reflectItems{reflect.ValueOf(pairs)}
	}
	return nil
}

type reflectItems struct{ v reflect.Value }

func (r reflectItems) Len() int        { return r.v.Len() }
func (r reflectItems) Index(i int) any { return r.v.Index(i).Interface() }

type reversed struct{ items }

func (r reversed) Index(i int) any { return r.items.Index(r.Len() - 1 - i) }

// window is items[from:to].
type window struct {
	items
	from, to int
}

func (w window) Len() int        { return w.to - w.from }
func (w window) Index(i int) any { return w.items.Index(w.from + i) }

// runLoop renders the body once per item. Liquid's break and continue
// come back as errors whose cause says which.
func runLoop(w io.Writer, ctx lrender.Context, b *budget, name string, list items, tablerow bool, cols int) error {
	defer func(item, loopVar any) {
		ctx.Set(name, item)
		ctx.Set(forloop, loopVar)
	}(ctx.Get(name), ctx.Get(forloop))
	cycles := map[string]int{} // the cycle tag keeps its place here
	n := list.Len()
	for i := 0; i < n; i++ {
		if err := b.iterate(); err != nil {
			return err
		}
		ctx.Set(name, list.Index(i))
		ctx.Set(forloop, map[string]any{"first": i == 0, "last": i == n-1, "index": i + 1, "index0": i,
			"rindex": n - i, "rindex0": n - i - 1, "length": n, ".cycles": cycles})
		if tablerow {
			if err := tableCellOpen(w, i, cols); err != nil {
				return err
			}
		}
		err := ctx.RenderChildren(w)
		if tablerow {
			if err := tableCellClose(w, i, n, cols); err != nil {
				return err
			}
		}
		if err == nil {
			continue
		}
		switch err.Cause().Error() {
		case "break outside a loop":
			return nil
		case "continue outside a loop":
			continue
		}
		return err
	}
	return nil
}

func tableCellOpen(w io.Writer, i, cols int) error {
	if i%cols == 0 {
		if _, err := fmt.Fprintf(w, `<tr class="row%d">`, i/cols+1); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, `<td class="col%d">`, i%cols+1)
	return err
}

func tableCellClose(w io.Writer, i, n, cols int) error {
	if _, err := io.WriteString(w, `</td>`); err != nil {
		return err
	}
	if (i+1)%cols == 0 || i+1 == n {
		_, err := io.WriteString(w, `</tr>`)
		return err
	}
	return nil
}
