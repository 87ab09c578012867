package render

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
	if _, err := r.Render(context.Background(), body, vars, HTML); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(context.Background(), body, vars, HTML); err != nil {
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
			if _, err := r.Render(context.Background(), body, vars, HTML); err != nil {
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
		if _, err := r.Render(context.Background(), body, vars, HTML); err != nil {
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
		if err := r.Check(context.Background(), body, HTML); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderSubject(b *testing.B) {
	r := NewRenderer()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(context.Background(), `Your order {{ data.orderId }}, {{ firstName ?? "friend" }}`, vars, Header); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBomb renders the template that took the process to 2.2 GB and
// 10 s of CPU, one built to hold as much as the bounds allow (7 values of
// 1 MiB assigned, then 1 MiB of output), and one that works on a 1 MiB
// value until its second is up, and reports the peak
// heap above the heap before the render. README: Security.
func BenchmarkBomb(b *testing.B) {
	r := NewRenderer()
	fill := `{% assign s = "xxxxxxxxxx" %}{% for i in (1..16) %}{% assign s = s | append: s %}{% endfor %}` +
		`{% assign s = s | slice: 0, 1040000 %}`
	for i := range 7 {
		fill += fmt.Sprintf(`{%% assign v%d = s | append: "%d" %%}`, i, i)
	}
	slow := fill + `{% for i in (1..100000) %}{% assign t = s | replace: "x", "y" | upcase %}{% endfor %}`
	fill += `{% for i in (1..100000) %}{{ s | slice: i, 100 }}{% endfor %}`
	for _, c := range []struct{ name, tpl string }{{"doubling", bomb}, {"fill", fill}, {"slow", slow}} {
		b.Run(c.name, func(b *testing.B) {
			peak := heapPeak(b, func() {
				if _, err := r.Render(context.Background(), c.tpl, nil, HTML); err == nil {
					b.Fatal("the render was not stopped")
				}
			})
			b.ReportMetric(float64(peak)/1e6, "peak-MB")
		})
	}
}

// heapPeak runs f b.N times and returns the largest heap seen above the
// heap before, sampled every half millisecond.
func heapPeak(b *testing.B, f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(500 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
					peak.Store(m.HeapAlloc - base)
				}
			}
		}
	}()
	b.ResetTimer()
	for range b.N {
		f()
	}
	b.StopTimer()
	close(done)
	return peak.Load()
}
