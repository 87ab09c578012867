package smtpin_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldmail/herald/smtpin"
)

// multipartMessage writes what a mail library sends: mixed(alternative
// (text, HTML), attachment), with To, Cc and Bcc.
func multipartMessage(t *testing.T) string {
	t.Helper()
	var body bytes.Buffer
	mixed := multipart.NewWriter(&body)
	var alt bytes.Buffer
	altW := multipart.NewWriter(&alt)
	for _, p := range []struct{ ct, content string }{
		{"text/plain; charset=utf-8", "Your invoice is attached.\r\nThank you!\r\n"},
		{"text/html; charset=utf-8", "<p>Your invoice is attached.</p><a href=\"https://shop.example/i/1\">See it online</a>\r\n"},
	} {
		w, _ := altW.CreatePart(textproto.MIMEHeader{"Content-Type": {p.ct}, "Content-Transfer-Encoding": {"7bit"}})
		_, _ = io.WriteString(w, p.content)
	}
	_ = altW.Close()
	w, _ := mixed.CreatePart(textproto.MIMEHeader{"Content-Type": {"multipart/alternative; boundary=" + altW.Boundary()}})
	_, _ = w.Write(alt.Bytes())
	pdf := make([]byte, 3000)
	for i := range pdf {
		pdf[i] = byte(i * 7)
	}
	w, _ = mixed.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"application/pdf; name=\"invoice.pdf\""},
		"Content-Disposition":       {"attachment; filename=\"invoice.pdf\""},
		"Content-Transfer-Encoding": {"base64"}})
	enc := base64.StdEncoding.EncodeToString(pdf)
	for len(enc) > 76 {
		_, _ = io.WriteString(w, enc[:76]+"\r\n")
		enc = enc[76:]
	}
	_, _ = io.WriteString(w, enc+"\r\n")
	_ = mixed.Close()
	return "From: Shop <orders@shop.example>\r\n" +
		"To: Customer <customer@example.net>\r\n" +
		"Cc: accounts@example.net\r\n" +
		"Bcc: archive@shop.example\r\n" +
		"Subject: Your invoice\r\n" +
		"Date: Mon, 02 Jan 2006 15:04:05 +0000\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=" + mixed.Boundary() + "\r\n\r\n" + body.String()
}

// rawPart is one leaf part as written: its header and body bytes.
type rawPart struct {
	header textproto.MIMEHeader
	body   string
}

func leafParts(t *testing.T, msg []byte) (mail.Header, []rawPart) {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	var out []rawPart
	var walk func(ct string, r io.Reader)
	walk = func(ct string, r io.Reader) {
		_, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
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
			if ct := p.Header.Get("Content-Type"); strings.HasPrefix(ct, "multipart/") {
				walk(ct, p)
				continue
			}
			b, err := io.ReadAll(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rawPart{p.Header, string(b)})
		}
	}
	walk(m.Header.Get("Content-Type"), m.Body)
	return m.Header, out
}

// A multipart message with an attachment arrives as written, part for
// part and byte for byte, and no copy carries the Bcc.
func TestSubmissionMultipartArrivesAsWritten(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	msg := multipartMessage(t)
	to := []string{"customer@example.net", "accounts@example.net", "archive@shop.example"}
	if _, err := submit(l.login(t), "orders@shop.example", to, msg); err != nil {
		t.Fatal(err)
	}
	got := l.sub.submissions()
	if len(got) != 1 || string(got[0].raw) != msg {
		t.Fatal("the message did not reach the Submitter as written")
	}
	wantHeader, wantParts := leafParts(t, []byte(msg))
	if len(wantParts) != 3 {
		t.Fatalf("%d parts written", len(wantParts))
	}
	if len(got[0].prepared) != 3 {
		t.Fatalf("%d copies, want one per recipient", len(got[0].prepared))
	}
	for i, copy := range got[0].prepared {
		if head, _, _ := bytes.Cut(copy, []byte("\r\n\r\n")); bytes.Contains(bytes.ToLower(head), []byte("bcc")) ||
			bytes.Contains(copy, []byte("archive@")) {
			t.Errorf("copy %d carries the Bcc", i)
		}
		header, parts := leafParts(t, copy)
		if !reflect.DeepEqual(parts, wantParts) {
			t.Errorf("copy %d: parts differ:\n%+v\nwant:\n%+v", i, parts, wantParts)
		}
		for _, name := range []string{"From", "To", "Cc", "Subject", "Date", "Content-Type"} {
			if header.Get(name) != wantHeader.Get(name) {
				t.Errorf("copy %d: %s %q, want %q", i, name, header.Get(name), wantHeader.Get(name))
			}
		}
		if !strings.HasSuffix(header.Get("Message-Id"), "@shop.example>") {
			t.Errorf("copy %d: Message-ID %q", i, header.Get("Message-Id"))
		}
		_, body, _ := bytes.Cut(copy, []byte("\r\n\r\n"))
		_, wantBody, _ := strings.Cut(msg, "\r\n\r\n")
		if string(body) != wantBody {
			t.Errorf("copy %d: the body changed", i)
		}
	}
}
