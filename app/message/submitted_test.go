package message_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/message"
)

// crlf writes a test message's lines the way SMTP carries them.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// attachmentPDF is an attachment's base64 body, kept byte for byte.
var attachmentPDF = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("%PDF-1.4 binary \x00\xff"), 20))

// submittedMixed is what a mail library writes: mixed(alternative(text,
// quoted-printable HTML), attachment), with a Bcc and no Message-ID.
var submittedMixed = crlf(`From: "Shop" <orders@shop.example>
To: customer@example.net
Bcc: hidden@example.org,
 other-hidden@example.org
Subject: =?UTF-8?Q?Your_order_=E2=9C=93?=
Date: Mon, 02 Jan 2006 15:04:05 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed-1"

This is a multi-part message in MIME format.
--mixed-1
Content-Type: multipart/alternative; boundary="alt-1"

--alt-1
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit

Thanks for your order: https://shop.example/o/1
--alt-1
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable

<html><body><p>Thanks for your order =E2=9C=93</p><a href=3D"https://shop.e=
xample/o/1">See it</a></body></html>
--alt-1--

--mixed-1
Content-Type: application/pdf; name="invoice.pdf"
Content-Disposition: attachment; filename="invoice.pdf"
Content-Transfer-Encoding: base64

` + attachmentPDF + `
--mixed-1--
epilogue
`)

// track is a stand-in for Herald's link rewriting: it replaces the shop's
// links and adds a pixel.
func track(html string) (string, error) {
	html = strings.ReplaceAll(html, "https://shop.example/o/1", "https://herald.test/t/c/TOKEN")
	return strings.Replace(html, "</body>", `<img src="https://herald.test/t/o/PIXEL" alt=""></body>`, 1), nil
}

func parse(t *testing.T, raw string) *message.Submitted {
	t.Helper()
	s, err := message.ParseSubmitted([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func prepare(t *testing.T, s *message.Submitted, o message.SubmitOptions) string {
	t.Helper()
	out, err := s.Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func splitMessage(t *testing.T, raw string) (header, body string) {
	t.Helper()
	header, body, ok := strings.Cut(raw, "\r\n\r\n")
	if !ok {
		t.Fatalf("no blank line in:\n%s", raw)
	}
	return header + "\r\n", body
}

func TestSubmittedKeptAsWrittenWithoutBcc(t *testing.T) {
	s := parse(t, submittedMixed)
	if s.From().Email != "orders@shop.example" || s.Subject() != "Your order ✓" || s.MessageID() != "" || s.Marketing() {
		t.Fatalf("from %v, subject %q, id %q, marketing %v", s.From(), s.Subject(), s.MessageID(), s.Marketing())
	}
	out := prepare(t, s, message.SubmitOptions{MessageID: "<given@shop.example>"})
	header, body := splitMessage(t, out)
	_, wantBody := splitMessage(t, submittedMixed)
	if body != wantBody {
		t.Error("the body changed with tracking off")
	}
	want := "Message-ID: <given@shop.example>\r\n" + strings.Replace(strings.SplitN(submittedMixed, "\r\n\r\n", 2)[0]+"\r\n",
		"Bcc: hidden@example.org,\r\n other-hidden@example.org\r\n", "", 1)
	if header != want {
		t.Errorf("header:\n%s\nwant:\n%s", header, want)
	}
	if strings.Contains(strings.ToLower(out), "hidden@") {
		t.Error("a Bcc address is in the message")
	}
}

func TestSubmittedAddsOnlyWhatIsMissing(t *testing.T) {
	raw := crlf("From: a@shop.example\nMessage-ID: <mine@shop.example>\nDate: Mon, 02 Jan 2006 15:04:05 +0000\nSubject: x\n\nhello\n")
	if out := prepare(t, parse(t, raw), message.SubmitOptions{MessageID: "<other@x>"}); out != raw {
		t.Errorf("a complete message changed:\n%s", out)
	}
	raw = crlf("From: a@shop.example\nSubject: x\n\nhello\n")
	date := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	out := prepare(t, parse(t, raw), message.SubmitOptions{Date: date})
	m, err := mail.ReadMessage(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if id := m.Header.Get("Message-Id"); !strings.HasSuffix(id, "@shop.example>") {
		t.Errorf("Message-ID %q, want one on the From domain", id)
	}
	if d, _ := m.Header.Date(); !d.Equal(date) {
		t.Errorf("Date %v, want %v", d, date)
	}
}

func TestSubmittedMarketingGetsListUnsubscribe(t *testing.T) {
	raw := crlf("From: a@shop.example\nX-Herald-Marketing: true\nList-Unsubscribe: <mailto:old@shop.example>\nSubject: x\n\nhello\n")
	s := parse(t, raw)
	if !s.Marketing() {
		t.Fatal("not marketing")
	}
	out := prepare(t, s, message.SubmitOptions{ListUnsubscribe: "https://herald.test/unsubscribe/abc"})
	m, err := mail.ReadMessage(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Header
	if got := h["List-Unsubscribe"]; len(got) != 1 || got[0] != "<https://herald.test/unsubscribe/abc>" {
		t.Errorf("List-Unsubscribe %q", got)
	}
	if h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post %q", h.Get("List-Unsubscribe-Post"))
	}
	if _, ok := h["X-Herald-Marketing"]; ok {
		t.Error("X-Herald-Marketing was sent")
	}

	// Without the header, or with another value: no List-Unsubscribe of
	// Herald's, and the instruction is still not sent.
	raw = crlf("From: a@shop.example\nX-Herald-Marketing: false\nSubject: x\n\nhello\n")
	out = prepare(t, parse(t, raw), message.SubmitOptions{ListUnsubscribe: "https://herald.test/unsubscribe/abc"})
	if strings.Contains(out, "List-Unsubscribe") || strings.Contains(out, "X-Herald") {
		t.Errorf("transactional message:\n%s", out)
	}
}

// leaf is a MIME leaf part: its header and its body as written.
type leaf struct {
	header textproto.MIMEHeader
	body   []byte
}

// parts walks a message's MIME tree and returns its leaf parts.
func parts(t *testing.T, raw string) []leaf {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []leaf
	var walk func(ct string, r io.Reader)
	walk = func(ct string, r io.Reader) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || !strings.HasPrefix(mt, "multipart/") {
			return
		}
		mr := multipart.NewReader(r, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(p.Header.Get("Content-Type"), "multipart/") {
				walk(p.Header.Get("Content-Type"), p)
				continue
			}
			body, err := io.ReadAll(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, leaf{p.Header, body})
		}
	}
	walk(m.Header.Get("Content-Type"), m.Body)
	return out
}

func TestSubmittedTrackedHTMLKeepsItsEncoding(t *testing.T) {
	tracked := prepare(t, parse(t, submittedMixed), message.SubmitOptions{RewriteHTML: track})
	before, after := parts(t, submittedMixed), parts(t, tracked)
	if len(after) != 3 {
		t.Fatalf("%d parts, want 3", len(after))
	}
	for i, p := range after {
		got, want := p.body, before[i].body
		if i == 1 {
			if p.header.Get("Content-Transfer-Encoding") != "quoted-printable" {
				t.Fatalf("HTML part encoding %q", p.header.Get("Content-Transfer-Encoding"))
			}
			html, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(got)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(html), `<a href="https://herald.test/t/c/TOKEN">`) ||
				!strings.Contains(string(html), "t/o/PIXEL") || !strings.Contains(string(html), "order ✓") {
				t.Fatalf("HTML:\n%s", html)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("part %d changed:\n%s\nwant:\n%s", i, got, want)
		}
	}
	if !strings.HasSuffix(tracked, "--mixed-1--\r\nepilogue\r\n") {
		t.Error("the epilogue changed")
	}
}

func TestSubmittedBase64HTML(t *testing.T) {
	html := "<html><body><a href=\"https://shop.example/o/1\">order</a></body></html>\r\n"
	raw := crlf("From: a@shop.example\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\n") +
		base64.StdEncoding.EncodeToString([]byte(html)) + "\r\n"
	out := prepare(t, parse(t, raw), message.SubmitOptions{RewriteHTML: track})
	_, body := splitMessage(t, out)
	if !strings.HasSuffix(body, "\r\n") {
		t.Error("the final line end was lost")
	}
	dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(body, "\r\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dec), "t/c/TOKEN") || !strings.Contains(string(dec), "t/o/PIXEL") {
		t.Fatalf("decoded HTML:\n%s", dec)
	}
	for _, l := range strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n") {
		if len(l) > 76 {
			t.Fatalf("base64 line of %d characters", len(l))
		}
	}
}

func TestSubmitted7bitHTMLWithLongLinksBecomesQuotedPrintable(t *testing.T) {
	raw := crlf("From: a@shop.example\nContent-Type: text/html\n\n<a href=\"https://shop.example/o/1\">x</a>" +
		strings.Repeat("y", 900) + "</body>\n")
	long := func(html string) (string, error) {
		return strings.ReplaceAll(html, "https://shop.example/o/1", "https://herald.test/t/c/"+strings.Repeat("T", 120)), nil
	}
	out := prepare(t, parse(t, raw), message.SubmitOptions{RewriteHTML: long})
	m, err := mail.ReadMessage(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get("Content-Transfer-Encoding") != "quoted-printable" {
		t.Fatalf("Content-Transfer-Encoding %q:\n%s", m.Header.Get("Content-Transfer-Encoding"), out)
	}
	html, _ := io.ReadAll(quotedprintable.NewReader(m.Body))
	if !strings.Contains(string(html), strings.Repeat("T", 120)) {
		t.Fatalf("HTML:\n%s", html)
	}
}

func TestSubmittedLeavesAttachedHTMLAndSignedPartsAlone(t *testing.T) {
	raw := crlf(`From: a@shop.example
Content-Type: multipart/mixed; boundary=b

--b
Content-Type: text/html
Content-Disposition: attachment; filename=page.html

<a href="https://shop.example/o/1">x</a></body>
--b
Content-Type: multipart/signed; boundary=s; protocol="application/pkcs7-signature"

--s
Content-Type: text/html

<a href="https://shop.example/o/1">x</a></body>
--s--
--b--
`)
	_, want := splitMessage(t, raw)
	if _, body := splitMessage(t, prepare(t, parse(t, raw), message.SubmitOptions{RewriteHTML: track})); body != want {
		t.Errorf("changed:\n%s", body)
	}
}

func TestSubmittedRewriteFailureIsReturned(t *testing.T) {
	boom := errors.New("no link key")
	_, err := parse(t, submittedMixed).Prepare(message.SubmitOptions{
		RewriteHTML: func(string) (string, error) { return "", boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestSubmittedBareLineFeedsBecomeCRLF(t *testing.T) {
	out := prepare(t, parse(t, "From: a@shop.example\nMessage-ID: <x@y>\nDate: Mon, 02 Jan 2006 15:04:05 +0000\n\nline\rtwo\n"), message.SubmitOptions{})
	want := "From: a@shop.example\r\nMessage-ID: <x@y>\r\nDate: Mon, 02 Jan 2006 15:04:05 +0000\r\n\r\nline\r\ntwo\r\n"
	if out != want {
		t.Fatalf("%q", out)
	}
}

func TestSubmittedRefusals(t *testing.T) {
	for name, raw := range map[string]string{
		"no From":         "Subject: x\r\n\r\nbody\r\n",
		"two From fields": "From: a@shop.example\r\nFrom: b@evil.example\r\n\r\nbody\r\n",
		"unreadable From": "From: not an address\r\n\r\nbody\r\n",
		"line too long":   "From: a@shop.example\r\n\r\n" + strings.Repeat("x", 999) + "\r\n",
		"not a field":     "From: a@shop.example\r\nthis is no field\r\n\r\nbody\r\n",
		"folded first":    " From: a@shop.example\r\n\r\nbody\r\n",
		"space in a name": "From: a@shop.example\r\nBcc : hidden@example.org\r\n\r\nbody\r\n",
	} {
		if _, err := message.ParseSubmitted([]byte(raw)); !errors.Is(err, message.ErrInvalidSubmission) {
			t.Errorf("%s: %v, want ErrInvalidSubmission", name, err)
		}
	}
	huge := make([]byte, message.MaxMessageBytes+1)
	if _, err := message.ParseSubmitted(huge); !errors.Is(err, message.ErrTooLarge) {
		t.Errorf("41 MB: %v", err)
	}
}
