package message

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
)

// benchHTML is about 10 KB of typical newsletter HTML.
func benchHTML() string {
	var b strings.Builder
	b.WriteString(`<html><head><style>p{margin:0}</style></head><body><table width="100%"><tr><td>`)
	for b.Len() < 10<<10-200 {
		b.WriteString(`<h2>Spring news</h2><p>Hello Ann, here is what changed this week &mdash; `)
		b.WriteString(`our <a href="https://example.com/click/abc123?u=42">new collection</a> is in, `)
		b.WriteString(`and delivery is free over 50&nbsp;€.</p><ul><li>Item one</li><li>Item two</li></ul>`)
	}
	b.WriteString(`</td></tr></table></body></html>`)
	return b.String()
}

// BenchmarkBuild builds a 10 KB HTML message without attachments, the text
// part derived, as every campaign recipient's message is.
func BenchmarkBuild(b *testing.B) {
	m := baseMessage()
	m.Subject = "Spring news — 20% off"
	m.HTML = benchHTML()
	m.ListUnsubscribe = "https://example.com/unsubscribe/abcdef0123456789"
	m.Headers = map[string]string{"X-Campaign": "spring-2025"}
	b.ReportAllocs()
	b.SetBytes(int64(len(m.HTML)))
	for b.Loop() {
		if _, err := Build(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildGivenText isolates the MIME writing from HTMLToText.
func BenchmarkBuildGivenText(b *testing.B) {
	m := baseMessage()
	m.HTML = benchHTML()
	m.Text = HTMLToText(m.HTML)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTMLToText(b *testing.B) {
	html := benchHTML()
	b.ReportAllocs()
	for b.Loop() {
		HTMLToText(html)
	}
}

// BenchmarkSignRSA2048 is the yardstick for Build: go-msgauth signing the
// message Build makes, which every queued message also goes through.
func BenchmarkSignRSA2048(b *testing.B) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	m := baseMessage()
	m.HTML = benchHTML()
	raw := mustBuild(b, m)
	opts := &dkim.SignOptions{Domain: "example.com", Selector: "herald", Signer: key, Hash: crypto.SHA256,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed}
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		if err := dkim.Sign(&out, bytes.NewReader(raw), opts); err != nil {
			b.Fatal(err)
		}
	}
}
