package messaging_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/storage"
)

// pdf is an attachment's content: bytes no text transformation may touch.
var pdf = func() []byte {
	b := []byte("%PDF-1.4\n")
	for i := 0; i < 3000; i++ {
		b = append(b, byte(i), byte(i>>3), 0, '\r', '\n', 0xff)
	}
	return b
}()

// multipartMessage is what an application writes: text and HTML
// alternatives and a PDF attachment, with a Bcc field its library left in.
func multipartMessage(from, to, bcc, extra string) string {
	var b strings.Builder
	b.WriteString("From: Shop <" + from + ">\r\nTo: <" + to + ">\r\nBcc: " + bcc + "\r\n" +
		"Subject: =?UTF-8?Q?Your_order_=E2=9C=93?=\r\nMIME-Version: 1.0\r\n" + extra +
		"Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n" +
		"This is a multi-part message in MIME format.\r\n" +
		"--outer\r\nContent-Type: multipart/alternative; boundary=\"inner\"\r\n\r\n" +
		"--inner\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"Thanks for your order =E2=9C=93: https://shop.example/orders/42\r\n" +
		"--inner\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"<html><body><p>Thanks! <a href=3D\"https://shop.example/orders/42\">Your order</a></p></body></html>\r\n" +
		"--inner--\r\n" +
		"--outer\r\nContent-Type: application/pdf; name=\"invoice.pdf\"\r\n" +
		"Content-Disposition: attachment; filename=\"invoice.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	enc := base64.StdEncoding.EncodeToString(pdf)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--outer--\r\n")
	return b.String()
}

// With tracking off, a multipart message with an attachment arrives at
// each recipient's server as the client wrote it: the same body byte for
// byte, its fields in order minus Bcc, with Herald's Message-ID, Date and
// a DKIM signature that verifies. The 250 names one email per recipient,
// and the Bcc recipient gets its copy without the field.
func TestSubmissionArrivesAsWrittenAndSigned(t *testing.T) {
	e := startSubmission(t)
	off := "DISABLED"
	if _, err := e.App.Accounts.UpdateProject(context.Background(), e.owner(), accounts.ProjectUpdate{Tracking: &off}); err != nil {
		t.Fatal(err)
	}
	msg := multipartMessage("orders@shop.example", "ada@example.net", "boss@example.net", "")
	c := e.mustLogin(t, false) // STARTTLS, AUTH PLAIN
	ids := mustSubmit(t, c, "orders@shop.example", []string{"ada@example.net", "boss@example.net"}, msg)
	if ids[0] == ids[1] || ids[0] == "" {
		t.Fatalf("ids %v", ids)
	}
	got := e.received(t, 2)
	sentHeader, sentBody := split(t, []byte(msg))
	for _, rcpt := range []string{"ada@example.net", "boss@example.net"} {
		raw := got[rcpt].Data
		e.verifyDKIM(t, raw)
		h, body := split(t, raw)
		if !bytes.Equal(body, sentBody) {
			t.Errorf("%s: the body changed", rcpt)
		}
		if strings.Contains(strings.ToLower(h), "\r\nbcc:") || strings.Contains(h, "boss@example.net") {
			t.Errorf("%s: the Bcc field was written:\n%s", rcpt, h)
		}
		// The client's fields, Bcc aside, in order and as written.
		want := strings.Replace(sentHeader, "Bcc: boss@example.net\r\n", "", 1)
		if !strings.HasSuffix(h, want) {
			t.Errorf("%s: header\n%s\ndoes not end with the client's fields\n%s", rcpt, h, want)
		}
		hdr := header(t, raw)
		if hdr.Get("Message-Id") == "" || hdr.Get("Date") == "" || hdr.Get("List-Unsubscribe") != "" {
			t.Errorf("%s: Herald's fields: %v", rcpt, hdr)
		}
	}
	// Parts, compared one by one: the attachment decodes to the same bytes.
	parts := rawParts(t, got["ada@example.net"].Data)
	if len(parts) != 3 || parts[2].contentType != "application/pdf" {
		t.Fatalf("parts %+v", parts)
	}
	pdfBack, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(parts[2].body), "\r\n", ""))
	if err != nil || !bytes.Equal(pdfBack, pdf) {
		t.Fatalf("the attachment changed: %v", err)
	}
	// Each recipient has its own Message-ID: the message had none.
	if header(t, got["ada@example.net"].Data).Get("Message-Id") == header(t, got["boss@example.net"].Data).Get("Message-Id") {
		t.Error("two recipients share a Message-ID Herald made")
	}
}

// With tracking on, the HTML part's links become Herald's redirects and it
// gets the open pixel, as /v1/send's HTML; the text part and the
// attachment arrive byte for byte, and the signature still verifies.
func TestSubmissionTracksTheHTMLPart(t *testing.T) {
	e := startSubmission(t)
	msg := multipartMessage("orders@shop.example", "ada@example.net", "", "")
	ids := mustSubmit(t, e.mustLogin(t, true), "orders@shop.example", []string{"ada@example.net"}, msg)
	raw := e.received(t, 1)["ada@example.net"].Data
	e.verifyDKIM(t, raw)
	sent, got := rawParts(t, []byte(msg)), rawParts(t, raw)
	if len(got) != 3 || !bytes.Equal(got[0].body, sent[0].body) || !bytes.Equal(got[2].body, sent[2].body) {
		t.Fatal("the text part or the attachment changed")
	}
	decoded, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(got[1].body)))
	if err != nil {
		t.Fatal(err)
	}
	html := string(decoded)
	if !strings.Contains(html, "http://herald.test/t/c/") || !strings.Contains(html, "http://herald.test/t/o/") ||
		strings.Contains(html, "https://shop.example/orders/42") {
		t.Fatalf("HTML part not tracked:\n%s", html)
	}
	// email.sent says so, and names the email the 250 named.
	sentEvents := e.eventsOf(t, "email.sent")
	if len(sentEvents) != 1 {
		t.Fatalf("%d email.sent events", len(sentEvents))
	}
	var data map[string]any
	if err := json.Unmarshal(sentEvents[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	if data["emailId"] != ids[0] || data["source"] != "smtp" || data["openTracked"] != true ||
		data["subject"] != "Your order ✓" || data["from"] != "orders@shop.example" {
		t.Fatalf("email.sent data %v", data)
	}
	em, err := storage.EmailByID(context.Background(), e.DB.Reader(), ids[0])
	if err != nil || em.Source != storage.SourceSMTP || len(em.Links) != 1 || em.Links[0] != "https://shop.example/orders/42" {
		t.Fatalf("email %+v %v", em, err)
	}
}

// A message marked "X-Herald-Marketing: true" gets Herald's
// List-Unsubscribe (with its one-click POST) and loses the mark; one
// without the mark gets no List-Unsubscribe. The recipient's contact is
// made, unsubscribed, as /v1/send makes it.
func TestSubmissionMarketingHeaderAndContact(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	simple := "From: news@shop.example\r\nTo: ada@example.net\r\nSubject: News\r\n"
	mustSubmit(t, c, "news@shop.example", []string{"ada@example.net"}, simple+"X-Herald-Marketing: true\r\n\r\nHello\r\n")
	mustSubmit(t, c, "news@shop.example", []string{"bob@example.net"}, simple+"\r\nHello\r\n")
	got := e.received(t, 2)
	marketing, plain := header(t, got["ada@example.net"].Data), header(t, got["bob@example.net"].Data)
	if !strings.Contains(marketing.Get("List-Unsubscribe"), "http://herald.test/unsubscribe/") ||
		marketing.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || marketing.Get("X-Herald-Marketing") != "" {
		t.Fatalf("marketing header %v", marketing)
	}
	if plain.Get("List-Unsubscribe") != "" {
		t.Fatalf("List-Unsubscribe without the mark: %v", plain)
	}
	e.verifyDKIM(t, got["ada@example.net"].Data)
	ct, err := storage.ContactByEmail(context.Background(), e.DB.Reader(), e.Project.ID, "ada@example.net")
	if err != nil || ct.Subscribed {
		t.Fatalf("contact %+v %v: want a new, unsubscribed one", ct, err)
	}
}

// A client's own Message-ID is sent as written to every recipient (so
// threads hold) and keys each recipient's email: the message sent again
// (its 250 was lost) is answered with the same ids and sends nothing
// more; a recipient named twice gets one email.
func TestSubmissionClientMessageIDSentOnce(t *testing.T) {
	e := startSubmission(t)
	c := e.mustLogin(t, false)
	msg := "From: app@shop.example\r\nTo: a@example.net, b@example.net\r\nMessage-ID: <thread-1@app.shop.example>\r\n" +
		"Subject: Re: ticket\r\n\r\nAnswer.\r\n"
	to := []string{"a@example.net", "b@example.net", "A@example.net"}
	first := mustSubmit(t, c, "app@shop.example", to, msg)
	if first[0] != first[2] || first[0] == first[1] {
		t.Fatalf("ids %v: want one email for a@ named twice", first)
	}
	again := mustSubmit(t, c, "app@shop.example", to, msg)
	if strings.Join(again, ",") != strings.Join(first, ",") {
		t.Fatalf("sent again: %v, first %v", again, first)
	}
	for rcpt, m := range e.received(t, 2) {
		if id := header(t, m.Data).Get("Message-Id"); id != "<thread-1@app.shop.example>" {
			t.Errorf("%s: Message-ID %q", rcpt, id)
		}
	}
	if n := len(e.eventsOf(t, "email.sent")); n != 2 {
		t.Fatalf("%d emails, want 2", n)
	}
	if got := e.Sink.Count(); got != 2 {
		t.Fatalf("%d messages delivered", got)
	}
}
