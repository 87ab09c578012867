package render

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"time"
)

// Templates are written by API clients and rendered once per recipient, so
// one render must not be able to take the process's memory or CPU: Liquid's
// assign/append doubling a string inside nested loops reached 2.2 GB and
// 10 s of CPU, and went on after the client had gone. These are the bounds
// Shopify's own Liquid keeps, checked while rendering, not after.
const (
	MaxOutput     = 1 << 20       // bytes of rendered output
	MaxValue      = 1 << 20       // bytes of any value a tag or filter makes
	MaxIterations = 100_000       // loop iterations in all, nested ones included
	MaxWork       = time.Second   // wall-clock time of one render
	maxAssigned   = 8 * (1 << 20) // bytes of the values assigned at one time
)

// LimitError is a render stopped by one of the bounds above. Its message
// names the bound.
type LimitError struct {
	Limit   string // output | value | iterations | time | assigned
	Message string
}

func (e *LimitError) Error() string { return e.Message }

// The limit errors, one per bound.
var (
	errOutput     = &LimitError{"output", "the template renders more than 1 MiB of output (the limit per render)"}
	errValue      = &LimitError{"value", "the template makes a value larger than 1 MiB (the limit for any value)"}
	errIterations = &LimitError{"iterations", "the template's loops run more than 100,000 iterations in all (the limit per render)"}
	errAssigned   = &LimitError{"assigned", "the template's assigned values add up to more than 8 MiB (the limit per render)"}
)

// budget is the account of one render. Tags find it among the bindings
// (budgetKey), filters through the slot they were lent (slots.go). The
// first bound crossed is kept in err: Liquid wraps or panics with the
// errors it meets, and the render returns err whatever Liquid made of it.
type budget struct {
	ctx        context.Context
	deadline   time.Time
	work       time.Duration // the time bound, for its error
	output     int
	iterations int
	assigned   map[string]int // size of each assigned variable now
	assignedIn int            // their sum
	steps      int
	err        error
}

// budgetKey binds the budget for the tags: not a name a template can write.
const budgetKey = "\x00budget"

func newBudget(ctx context.Context) *budget {
	return newBudgetWithin(ctx, MaxWork)
}

// newBudgetWithin is a budget whose render may take work of wall-clock time.
func newBudgetWithin(ctx context.Context, work time.Duration) *budget {
	return &budget{ctx: ctx, deadline: time.Now().Add(work), work: work}
}

// timeError names the time bound a render crossed.
func timeError(work time.Duration) *LimitError {
	return &LimitError{"time", "the template takes more than " + strconv.FormatFloat(work.Seconds(), 'g', -1, 64) + " s to render (the limit per render)"}
}

// fail records the first error and returns it.
func (b *budget) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

// step is a unit of work: a loop iteration, a filter, an assignment. It
// stops the render when the request's context has ended or the time is
// up. The clock is read every few steps; a step is short.
func (b *budget) step() error {
	if b.err != nil {
		return b.err
	}
	b.steps++
	if b.steps%16 != 0 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return b.fail(err)
	}
	if time.Now().After(b.deadline) {
		return b.fail(timeError(b.work))
	}
	return nil
}

// iterate counts one loop iteration.
func (b *budget) iterate() error {
	if b.iterations++; b.iterations > MaxIterations {
		return b.fail(errIterations)
	}
	return b.step()
}

// write counts n bytes of output.
func (b *budget) write(n int) error {
	if b.output += n; b.output > MaxOutput {
		return b.fail(errOutput)
	}
	return nil
}

// value checks the size of a value a tag or filter made.
func (b *budget) value(v any) error {
	if _, ok := sizeWithin(v, MaxValue); !ok {
		return b.fail(errValue)
	}
	return nil
}

// assign checks a value about to be bound to name and accounts for it.
func (b *budget) assign(name string, v any) error {
	size, ok := sizeWithin(v, MaxValue)
	if !ok {
		return b.fail(errValue)
	}
	if b.assigned == nil {
		b.assigned = map[string]int{}
	}
	b.assignedIn += size - b.assigned[name]
	b.assigned[name] = size
	if b.assignedIn > maxAssigned {
		return b.fail(errAssigned)
	}
	return b.step()
}

// result is the error a render returns: the bound it crossed or the
// context's end if any, else what Liquid reported.
func (b *budget) result(err error) error {
	if b.err != nil {
		return b.err
	}
	return err
}

// sizeWithin measures a value in bytes as it would print, counting one
// more per item of a list or map, and gives up as soon as it passes max,
// so that measuring costs no more than the bound.
func sizeWithin(v any, max int) (int, bool) {
	n := 0
	ok := measure(v, max, &n)
	return n, ok
}

func measure(v any, max int, n *int) bool {
	switch v := v.(type) {
	case nil, bool, int, int64, float64:
		*n += 8
	case string:
		*n += len(v)
	case []byte:
		*n += len(v)
	case []any:
		for _, item := range v {
			if *n++; *n > max || !measure(item, max, n) {
				return false
			}
		}
	case map[string]any:
		for k, item := range v {
			if *n += 1 + len(k); *n > max || !measure(item, max, n) {
				return false
			}
		}
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			for i := range rv.Len() {
				if *n++; *n > max || !measure(rv.Index(i).Interface(), max, n) {
					return false
				}
			}
		case reflect.String:
			*n += rv.Len()
		default:
			*n += 8
		}
	}
	return *n <= max
}

// asLimit reports the bound behind err, if any.
func asLimit(err error) (*LimitError, bool) {
	var l *LimitError
	return l, errors.As(err, &l)
}

// PanicError is a panic inside Liquid, turned into an error: a template
// must never bring down the request or the job that renders it (Liquid
// v1.6 panics on `{%case {%when ""%}{%endcase%}`, found by FuzzRender).
// Its message does not repeat the panic's, which speaks of Go internals.
type PanicError struct{ Value any }

func (e *PanicError) Error() string {
	return "the template could not be rendered: the template engine failed on it"
}

func panicError(p any) error {
	if err, ok := p.(error); ok {
		if _, isLimit := asLimit(err); isLimit {
			return err
		}
	}
	return &PanicError{Value: p}
}
