package render

import (
	"context"
	"strings"
	"testing"
)

// FuzzRender renders and checks any template in each mode with the test
// variables: neither ever panics (a panic inside Liquid comes back as a
// *PanicError), the output stays within MaxOutput, and a header never
// holds a line break. Seeds: testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	r := NewRenderer()
	vars := testVars()
	f.Fuzz(func(t *testing.T, tpl string) {
		for _, mode := range []Mode{HTML, Text, Header} {
			out, _ := r.Render(context.Background(), tpl, vars, mode)
			_ = r.Check(context.Background(), tpl, mode)
			if len(out) > MaxOutput {
				t.Fatalf("%q: %d bytes out", tpl, len(out))
			}
			if mode == Header && strings.ContainsAny(out, "\r\n") {
				t.Fatalf("%q: a header with a line break: %q", tpl, out)
			}
		}
	})
}
