package render

import (
	"encoding/json"
	"fmt"
	"html"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/osteele/liquid/expressions"
	"github.com/osteele/liquid/filters"
	lrender "github.com/osteele/liquid/render"
	"github.com/osteele/liquid/values"
)

// Filters are where a value grows: append doubles a string, replace can
// multiply one, join and concat build lists into text. Liquid gives a
// filter no way to see the render it works for, so each render borrows a
// slot: a render configuration whose filters are wrapped to account to
// the slot's current budget. Every filter call is a step (the render stops
// when its time is up or its context ends), a filter's result larger than
// MaxValue stops the render, and a range about to be spelled out as a list
// is measured first, since (1..1000000000) is ten bytes of template.

// filterSet is every filter a template may use: Liquid's standard ones,
// Herald's safe replacements for those that could not be bounded from
// outside, and Herald's own.
func filterSet() map[string]any {
	set := collector{}
	filters.AddStandardFilters(set)
	set.AddFilter("replace", replaceAll)
	set.AddFilter("join", join)
	set.AddFilter("truncate", truncate)
	set.AddFilter("truncatewords", truncateWords)
	set.AddFilter("uniq", uniq)
	set.AddFilter("slice", slice)
	set.AddFilter(filterHTML, func(v any) string { return html.EscapeString(stringify(v)) })
	set.AddFilter(filterText, stringify)
	set.AddFilter(filterURLHTML, func(v any) string { return html.EscapeString(safeURL(stringify(v))) })
	set.AddFilter(filterURLText, func(v any) string { return safeURL(stringify(v)) })
	set.AddFilter(filterFallback, fallback)
	return set
}

// collector records filters by name, as Liquid's configuration does.
type collector map[string]any

func (c collector) AddFilter(name string, fn any) { c[name] = fn }

// slot is a render configuration lent to one render at a time.
type slot struct {
	cfg    lrender.Config
	budget *budget
}

// newSlot builds a configuration that shares base's tags and a fresh set
// of filters bound to the slot.
func newSlot(base lrender.Config, set map[string]any) *slot {
	s := &slot{cfg: base}
	s.cfg.Config.Config = expressions.NewConfig()
	for name, fn := range set {
		s.cfg.AddFilter(name, wrapFilter(s, fn))
	}
	return s
}

var (
	anyType   = reflect.TypeFor[any]()
	errorType = reflect.TypeFor[error]()
	nilError  = reflect.Zero(errorType)
)

// wrapFilter returns fn with the slot's accounting around it. Parameters
// that take a list or a string are declared as any and converted here: a
// range reaches the wrapper lazy and is measured before it is spelled
// out, and a string is passed as it is (Liquid converts a string argument
// to a string with fmt.Sprint, two copies of a megabyte per call).
func wrapFilter(s *slot, fn any) any {
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		if in[i] = ft.In(i); in[i].Kind() == reflect.Slice || in[i].Kind() == reflect.String {
			in[i] = anyType
		}
	}
	wt := reflect.FuncOf(in, []reflect.Type{ft.Out(0), errorType}, ft.IsVariadic())
	fail := func(err error) []reflect.Value { return []reflect.Value{reflect.Zero(ft.Out(0)), reflect.ValueOf(err)} }
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		b := s.budget
		if err := b.step(); err != nil {
			return fail(err)
		}
		for i, arg := range args {
			if in[i] == ft.In(i) {
				continue
			}
			v, err := convertArg(b, arg.Interface(), ft.In(i))
			if err != nil {
				return fail(err)
			}
			args[i] = v
		}
		out := fv.Call(args)
		if len(out) == 2 && !out[1].IsNil() {
			err := out[1].Interface().(error)
			if l, ok := asLimit(err); ok {
				b.fail(l)
			}
			return fail(err)
		}
		if err := b.value(out[0].Interface()); err != nil {
			return fail(err)
		}
		return []reflect.Value{out[0], nilError}
	}).Interface()
}

// convertArg converts a filter's argument as Liquid would, measuring a
// range first and passing a string as it is.
func convertArg(b *budget, v any, typ reflect.Type) (reflect.Value, error) {
	if s, ok := v.(string); ok && typ.Kind() == reflect.String {
		return reflect.ValueOf(s).Convert(typ), nil
	}
	if r, ok := v.(values.Range); ok && r.Len()*9 > MaxValue {
		return reflect.Value{}, b.fail(errValue)
	}
	list, err := values.Convert(v, typ)
	if err != nil {
		return reflect.Value{}, err
	}
	if list == nil {
		return reflect.Zero(typ), nil
	}
	return reflect.ValueOf(list), nil
}

// replaceAll is Liquid's replace, refusing before it builds a result over
// MaxValue: one call could otherwise multiply a string by a million.
func replaceAll(s, old, replacement string) (string, error) {
	n := strings.Count(s, old)
	if len(replacement) > len(old) && n > 0 && (len(replacement)-len(old)) > (MaxValue-len(s))/n {
		return "", errValue
	}
	return strings.ReplaceAll(s, old, replacement), nil
}

// join is Liquid's join, refusing before it builds a result over MaxValue.
func join(a []any, sep func(string) string) (string, error) {
	glue := sep(" ")
	parts := make([]string, 0, len(a))
	size := 0
	for _, v := range a {
		if v == nil {
			continue
		}
		p := fmt.Sprint(v)
		if size += len(p) + len(glue); size > MaxValue+len(glue) {
			return "", errValue
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, glue), nil
}

// truncate cuts s to at most length characters, the ellipsis included,
// as Shopify's Liquid does. Liquid v1.6 built a regular expression of the
// length, which panics past 1,000.
func truncate(s string, length func(int) int, ellipsis func(string) string) string {
	n, el := length(50), ellipsis("...")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	keep := max(n-utf8.RuneCountInString(el), 0)
	return string([]rune(s)[:keep]) + el
}

// truncateWords keeps the first length words of s and adds the ellipsis
// when it cut anything (Liquid v1.6 built a regular expression here too).
func truncateWords(s string, length func(int) int, ellipsis func(string) string) string {
	n, el := max(length(15), 1), ellipsis("...")
	words := strings.Fields(s)
	if len(words) <= n {
		return s
	}
	return strings.Join(words[:n], " ") + el
}

// slice is Liquid's slice of a string by characters, without spelling
// the whole string out as runes first (Liquid v1.6 did, 4 bytes a
// character, on every call).
func slice(s string, start int, length func(int) int) string {
	n := length(1)
	if start < 0 {
		start += utf8.RuneCountInString(s)
	}
	if start < 0 || n <= 0 {
		return ""
	}
	from, to, i := len(s), len(s), 0
	for pos := range s {
		if i == start {
			from = pos
		}
		if i == start+n {
			to = pos
			break
		}
		i++
	}
	if from > to {
		return ""
	}
	return s[from:to]
}

// uniq is Liquid's uniq in linear time: items are told apart by their
// JSON text, where Liquid compared lists and maps with every item kept so
// far.
func uniq(a []any) []any {
	seen := make(map[string]bool, len(a))
	var out []any
	for _, item := range a {
		key, err := json.Marshal(item)
		if err != nil {
			key = []byte(fmt.Sprintf("%T %v", item, item))
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, item)
		}
	}
	return out
}
