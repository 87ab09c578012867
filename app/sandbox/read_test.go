package sandbox

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const multipartMessage = "Return-Path: <b@x.test>\r\n" +
	"From: =?utf-8?q?J=C3=B6rg?= <j@x.test>\r\n" +
	"Subject: Hello\r\n" +
	"Received: one\r\nReceived: two\r\n" +
	"DKIM-Signature: v=1; a=rsa-sha256;\r\n\tb=abc\r\n def\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n" +
	"\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=inner\r\n" +
	"\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain; charset=iso-8859-1\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Gr=FC=DFe, a long line=\r\n continued\r\n" +
	"--inner\r\n" +
	"Content-Type: text/html; charset=utf-8\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"PHA+SMOpbGxvPC9wPg==\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: text/html\r\n" +
	"Content-Disposition: attachment; filename=x.html\r\n" +
	"\r\n" +
	"<p>attachment</p>\r\n" +
	"--outer--\r\n"

func TestReadMultipart(t *testing.T) {
	m := read([]byte(multipartMessage))
	if m.Text != "Grüße, a long line continued\r\n" && m.Text != "Grüße, a long line continued" {
		t.Errorf("text %q", m.Text)
	}
	if m.HTML != "<p>Héllo</p>" {
		t.Errorf("html %q", m.HTML)
	}
	if m.Headers["Received"] != "one\ntwo" || m.Headers["DKIM-Signature"] != "v=1; a=rsa-sha256; b=abc def" ||
		m.Headers["From"] != "=?utf-8?q?J=C3=B6rg?= <j@x.test>" {
		t.Errorf("headers %q", m.Headers)
	}
	if got := decodeWords(m.Headers["From"]); got != "Jörg <j@x.test>" {
		t.Errorf("decoded From %q", got)
	}
}

func TestReadPlainAndBroken(t *testing.T) {
	for _, tc := range []struct{ raw, text, html string }{
		{"Subject: x\n\nbody\n", "body\n", ""},
		{"Content-Type: text/html\r\n\r\n<b>x</b>", "", "<b>x</b>"},
		{"no header at all", "", ""},
		{"Content-Type: multipart/mixed\r\n\r\nno boundary", "", ""},
		{"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nunterminated", "", ""},
		{"Content-Type: ;;;\r\n\r\nbad type", "bad type", ""},
		{"Content-Transfer-Encoding: base64\r\n\r\n!!!not base64", "!!!not base64", ""},
	} {
		m := read([]byte(tc.raw))
		if m.Text != tc.text || m.HTML != tc.html {
			t.Errorf("%q: text %q html %q", tc.raw, m.Text, m.HTML)
		}
	}
}

func TestWithBaseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"<!doctype html><html><head><title>x</title></head><body>y</body></html>": `<!doctype html><html><head><base target="_blank"><title>x</title></head><body>y</body></html>`,
		`<HTML lang="en"><BODY>y</BODY></HTML>`:                                   `<HTML lang="en"><base target="_blank"><BODY>y</BODY></HTML>`,
		"<p>fragment</p>":                                                         `<base target="_blank"><p>fragment</p>`,
		"<header>not a head</header>":                                             `<base target="_blank"><header>not a head</header>`,
		"<head":                                                                   `<base target="_blank"><head`,
	} {
		if got := withBaseTarget(in); got != want {
			t.Errorf("withBaseTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

// Reading never panics, whatever the bytes, and gives valid UTF-8.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte(multipartMessage))
	f.Add([]byte("Subject: x\n\nbody\n"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b--"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := read(raw)
		for k, v := range m.Headers {
			if !utf8.ValidString(k) || !utf8.ValidString(v) || k == "" || strings.ContainsAny(k, " \t\r\n:") {
				t.Fatalf("header %q: %q", k, v)
			}
		}
		if !utf8.ValidString(m.Text) || !utf8.ValidString(m.HTML) {
			t.Fatalf("invalid UTF-8: %q %q", m.Text, m.HTML)
		}
		_ = withBaseTarget(m.HTML)
	})
}

func TestDisplayAddress(t *testing.T) {
	for in, want := range map[string]string{
		"<hello@x.test>":                     "hello@x.test",
		`"Herald Team" <hello@x.test>`:       "Herald Team <hello@x.test>",
		"=?utf-8?q?J=C3=B6rg?= <j@x.test>":   "Jörg <j@x.test>",
		"not an address, =?utf-8?q?=C3=A9?=": "not an address, é",
	} {
		if got := displayAddress(in); got != want {
			t.Errorf("displayAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
