package message

import (
	"bytes"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
)

func TestBuildAttachments(t *testing.T) {
	m := baseMessage()
	m.HTML = `<p>Logo: <img src="cid:logo" alt="Logo"></p>`
	longName := strings.Repeat("Relevé de compte détaillé ", 9) + ".pdf" // 238 runes, non-ASCII
	m.Attachments = []Attachment{
		{Filename: "report.pdf", ContentType: "application/pdf", Content: randomBytes(t, 5000)},
		{Filename: "logo.png", ContentType: "image/png", ContentID: "<logo>", Inline: true, Content: randomBytes(t, 300)},
		{Filename: longName, ContentType: "text/plain; charset=iso-8859-1", Content: []byte("caf\xe9\n")},
		{Filename: `my file (1); a\b.txt`, ContentType: "text/csv", Content: nil},
		{Filename: "pixel.gif", ContentType: "image/gif", ContentID: "px@herald", Inline: true, Content: []byte("GIF89a")},
		{Filename: "mail.eml", ContentType: "message/rfc822", Content: []byte("Subject: x\r\n\r\nhi")},
	}
	raw := mustBuild(t, m)
	h, leaves := parse(t, raw)
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/mixed;") {
		t.Fatalf("Content-Type = %q", ct)
	}
	paths := make([]string, len(leaves))
	for i, l := range leaves {
		paths[i] = l.path
	}
	wantPaths := "mixed/related/alternative mixed/related/alternative mixed/related mixed/related mixed mixed mixed mixed"
	if got := strings.Join(paths, " "); got != wantPaths {
		t.Fatalf("part paths %q, want %q", got, wantPaths)
	}
	// Inline parts in order, then regular attachments in order.
	order := []int{1, 4, 0, 2, 3, 5}
	for i, ai := range order {
		checkAttachmentPart(t, leaves[2+i], m.Attachments[ai])
	}
	if ct := leaves[7].get("Content-Type"); !strings.HasPrefix(ct, "application/octet-stream;") {
		t.Errorf("message/rfc822 attachment sent as %q, want application/octet-stream", ct)
	}
	if _, p, _ := mime.ParseMediaType(leaves[5].get("Content-Type")); p["charset"] != "iso-8859-1" {
		t.Errorf("charset parameter lost: %q", leaves[5].get("Content-Type"))
	}
}

func checkAttachmentPart(t *testing.T, l leaf, a Attachment) {
	t.Helper()
	if !bytes.Equal(l.body, a.Content) {
		t.Errorf("%s: content differs (%d bytes, want %d)", a.Filename, len(l.body), len(a.Content))
	}
	if l.get("Content-Transfer-Encoding") != "base64" {
		t.Errorf("%s: encoding %q", a.Filename, l.get("Content-Transfer-Encoding"))
	}
	disp, dp, err := mime.ParseMediaType(l.get("Content-Disposition"))
	wantDisp := map[bool]string{true: "inline", false: "attachment"}[a.Inline]
	if err != nil || disp != wantDisp || dp["filename"] != a.Filename {
		t.Errorf("%s: Content-Disposition %q → %q %q, %v", a.Filename, l.get("Content-Disposition"), disp, dp["filename"], err)
	}
	mt, cp, err := mime.ParseMediaType(l.get("Content-Type"))
	// A name that is not ASCII is there as encoded-words, for old clients.
	name, derr := new(mime.WordDecoder).DecodeHeader(cp["name"])
	if err != nil || derr != nil || name != a.Filename || !strings.HasPrefix(a.ContentType, mt) && !strings.HasPrefix(a.ContentType, "message/") {
		t.Errorf("%s: Content-Type %q → %q %q, %v", a.Filename, l.get("Content-Type"), mt, cp["name"], err)
	}
	// multipart.Part.FileName is what most Go receivers use.
	if got := (&multipart.Part{Header: l.header}).FileName(); got != a.Filename {
		t.Errorf("Part.FileName = %q, want %q", got, a.Filename)
	}
	if a.ContentID != "" {
		if got, want := l.get("Content-Id"), "<"+bareContentID(a.ContentID)+">"; got != want {
			t.Errorf("%s: Content-ID %q, want %q", a.Filename, got, want)
		}
	}
}

func TestBuildInlineOnly(t *testing.T) {
	m := baseMessage()
	m.Attachments = []Attachment{{Filename: "a.png", ContentType: "image/png", ContentID: "a", Inline: true, Content: []byte{1, 2, 3}}}
	h, leaves := parse(t, mustBuild(t, m))
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/related;") {
		t.Fatalf("Content-Type = %q", ct)
	}
	if len(leaves) != 3 || leaves[0].path != "related/alternative" || leaves[2].path != "related" {
		t.Fatalf("unexpected structure: %d parts", len(leaves))
	}
	checkAttachmentPart(t, leaves[2], m.Attachments[0])
}

func TestBuildRegularOnly(t *testing.T) {
	m := baseMessage()
	m.Attachments = []Attachment{{Filename: "a.txt", ContentType: "text/plain", Content: []byte("x")}}
	h, leaves := parse(t, mustBuild(t, m))
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/mixed;") {
		t.Fatalf("Content-Type = %q", ct)
	}
	if len(leaves) != 3 || leaves[0].path != "mixed/alternative" || leaves[2].path != "mixed" {
		t.Fatalf("unexpected structure: %+v", leaves)
	}
	checkAttachmentPart(t, leaves[2], m.Attachments[0])
}

func TestBase64Lines(t *testing.T) {
	m := baseMessage()
	m.Attachments = []Attachment{{Filename: "a.bin", ContentType: "application/octet-stream", Content: randomBytes(t, 57*3+1)}}
	raw := mustBuild(t, m)
	_, body, _ := bytes.Cut(raw, []byte("filename=\"a.bin\"\r\n\r\n"))
	lines := strings.Split(string(body), "\r\n")
	for i, want := range []int{76, 76, 76, 4} {
		if len(lines[i]) != want {
			t.Errorf("base64 line %d has %d characters, want %d", i, len(lines[i]), want)
		}
	}
}

func TestParseDisposition(t *testing.T) {
	for in, want := range map[string][2]bool{"": {false, true}, "attachment": {false, true},
		"INLINE": {true, true}, "inline": {true, true}, "other": {false, false}} {
		if inline, ok := ParseDisposition(in); inline != want[0] || ok != want[1] {
			t.Errorf("ParseDisposition(%q) = %v, %v", in, inline, ok)
		}
	}
}
