package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchBody is a 10 KB HTML body with one placeholder for each of the 10
// variables (escaped ones, a raw one and one with a fallback), as a real
// newsletter has.
func benchBody() string {
	var b strings.Builder
	b.WriteString(`<html><body><h1>Hello {{ firstName ?? "there" }}</h1>`)
	vars := []string{"lastName", "company", "city", "plan", "email", "id", "data.orderId", "data.total"}
	for i := 0; b.Len() < 10<<10; i++ {
		if i < len(vars) {
			fmt.Fprintf(&b, `<p style="margin:0;padding:4px">Your %s is {{ %s }}.</p>`, vars[i], vars[i])
			continue
		}
		b.WriteString(`<p style="margin:0;padding:4px;font-family:Helvetica,Arial,sans-serif">Static newsletter copy.</p>`)
	}
	b.WriteString(`<a href="{{{ unsubscribeUrl }}}">Unsubscribe</a></body></html>`)
	return b.String()
}

// denseBody is 10 KB in which every line has a placeholder: about 140.
func denseBody() string {
	var b strings.Builder
	vars := []string{"lastName", "company", "city", "plan", "email", "id", "data.orderId", "data.total"}
	for b.Len() < 10<<10 {
		for _, v := range vars {
			fmt.Fprintf(&b, `<p style="margin:0;padding:4px">Your %s is {{ %s }}.</p>`, v, v)
		}
	}
	return b.String()
}

func benchVars() map[string]any {
	data := map[string]any{"firstName": "Ann", "lastName": "O'Neil", "company": "Acme & Co", "city": "Paris",
		"plan": "pro", "orderId": json.Number("12345"), "total": json.Number("99.5")}
	vars := map[string]any{"email": "ann@example.com", "id": "c1", "unsubscribeUrl": "https://h.test/u/abc", "data": data}
	for k, v := range data {
		vars[k] = v
	}
	return vars
}

func BenchmarkRenderHTML10KB(b *testing.B) {
	r := NewRenderer()
	body, vars := benchBody(), benchVars()
	if _, err := r.Render(body, vars, HTML); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(body, vars, HTML); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderHTML10KBParallel(b *testing.B) {
	r := NewRenderer()
	body, vars := benchBody(), benchVars()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := r.Render(body, vars, HTML); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkRenderHTML10KBDense(b *testing.B) {
	r := NewRenderer()
	body, vars := denseBody(), benchVars()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(body, vars, HTML); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse10KB is the cost of a cache miss.
func BenchmarkParse10KB(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewRenderer()
		if err := r.Check(body, HTML); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderSubject(b *testing.B) {
	r := NewRenderer()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(`Your order {{ data.orderId }}, {{ firstName ?? "friend" }}`, vars, Header); err != nil {
			b.Fatal(err)
		}
	}
}
