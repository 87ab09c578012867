package message

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateHeaders(t *testing.T) {
	cases := []struct {
		name, value, code string // code "" means valid
	}{
		{"X-Campaign", "spring", ""},
		{"Content-Language", "de", ""},
		{"In-Reply-To", "<a@b>", ""},
		{"List-Id", "<news.example.com>", ""},
		{"X-Empty", "", ""},
		{"X-Max", strings.Repeat("é", 998), ""},
		{"X-Over", strings.Repeat("a", 999), "too_big"},
		{"X-CR", "a\rb", "invalid_string"},
		{"X-LF", "a\nBcc: evil@example.com", "invalid_string"},
		{"X-A\r\nBcc", "evil@example.com", "invalid_string"},
		{"X-Space Name", "v", "invalid_string"},
		{"X-Colon:", "v", "invalid_string"},
		{"X-Ünicode", "v", "invalid_string"},
		{"", "v", "invalid_string"},
		{strings.Repeat("X", 77), "v", "invalid_string"},
		{"bcc", "evil@example.com", "reserved_header"},
		{"From", "x@y", "reserved_header"},
		{"reply-to", "x@y", "reserved_header"},
		{"Message-Id", "<x@y>", "reserved_header"},
		{"Content-Type", "text/plain", "reserved_header"},
		{"content-transfer-encoding", "8bit", "reserved_header"},
		{"DKIM-Signature", "v=1", "reserved_header"},
		{"ARC-Seal", "i=1", "reserved_header"},
		{"Resent-From", "x@y", "reserved_header"},
		{"List-Unsubscribe", "<https://x>", "reserved_header"},
		{"List-Unsubscribe-Post", "List-Unsubscribe=One-Click", "reserved_header"},
		{"Return-Path", "<x@y>", "reserved_header"},
		{"Sender", "x@y", "reserved_header"},
		{"X-Herald-Email-Id", "1", "reserved_header"},
	}
	for _, c := range cases {
		problems := ValidateHeaders(map[string]string{c.name: c.value})
		switch {
		case c.code == "" && len(problems) > 0:
			t.Errorf("%q: %q unexpectedly refused: %+v", c.name, c.value, problems)
		case c.code != "" && (len(problems) != 1 || problems[0].Code != c.code):
			t.Errorf("%q: %q gave %+v, want code %s", c.name, c.value, problems, c.code)
		case c.code != "" && problems[0].Field != "headers."+c.name:
			t.Errorf("field = %q", problems[0].Field)
		}
	}
}

func TestValidateHeadersDuplicate(t *testing.T) {
	p := ValidateHeaders(map[string]string{"X-Tag": "a", "x-tag": "b"})
	if len(p) != 1 || p[0].Code != "duplicate_header" || p[0].Field != "headers.x-tag" {
		t.Errorf("problems = %+v", p)
	}
}

func attachments(n, size int) []Attachment {
	out := make([]Attachment, n)
	for i := range out {
		out[i] = Attachment{Filename: "f.bin", ContentType: "application/octet-stream", Content: make([]byte, size)}
	}
	return out
}

func TestValidateAttachmentCaps(t *testing.T) {
	if p := ValidateAttachments(attachments(10, 1<<20), 0); len(p) != 0 {
		t.Errorf("10 attachments of 10 MB total refused: %+v", p)
	}
	p := ValidateAttachments(attachments(11, 1), 0)
	if len(p) != 1 || p[0].Field != "attachments" || p[0].Code != "too_big" || p[0].Received != 11 {
		t.Errorf("11 attachments: %+v", p)
	}
	over := attachments(2, 5<<20)
	over[1].Content = make([]byte, 5<<20+1)
	p = ValidateAttachments(over, 0)
	if len(p) != 1 || p[0].Field != "attachments" || p[0].Code != "too_big" || p[0].Received != 10<<20+1 {
		t.Errorf("10 MB + 1 byte: %+v", p)
	}
	if p := ValidateAttachments(attachments(1, 2000), 1000); len(p) != 1 || !strings.Contains(p[0].Message, "1000 bytes") {
		t.Errorf("custom cap: %+v", p)
	}
	if p := ValidateAttachments(attachments(1, 20<<20), 20<<20); len(p) != 0 {
		t.Errorf("raised cap: %+v", p)
	}
}

func TestValidateAttachmentFields(t *testing.T) {
	ok := Attachment{Filename: "a.pdf", ContentType: "application/pdf"}
	cases := []struct {
		edit        func(*Attachment)
		field, code string
	}{
		{func(a *Attachment) { a.Filename = "" }, "filename", "too_small"},
		{func(a *Attachment) { a.Filename = strings.Repeat("ü", 255) }, "", ""},
		{func(a *Attachment) { a.Filename = strings.Repeat("a", 256) }, "filename", "too_big"},
		{func(a *Attachment) { a.Filename = "a\r\nContent-Type: text/html" }, "filename", "invalid_string"},
		{func(a *Attachment) { a.Filename = `a".pdf` }, "filename", "invalid_string"},
		{func(a *Attachment) { a.ContentType = "" }, "contentType", "invalid_string"},
		{func(a *Attachment) { a.ContentType = "pdf" }, "contentType", "invalid_string"},
		{func(a *Attachment) { a.ContentType = "text/plain\r\nBcc: x@y" }, "contentType", "invalid_string"},
		{func(a *Attachment) { a.ContentType = "text/plain; charset=utf-8" }, "", ""},
		{func(a *Attachment) { a.Inline = true }, "contentId", "invalid_type"},
		{func(a *Attachment) { a.Inline, a.ContentID = true, "<logo@x>" }, "", ""},
		{func(a *Attachment) { a.ContentID = "lo go" }, "contentId", "invalid_string"},
		{func(a *Attachment) { a.ContentID = "logo>\r\nBcc: x" }, "contentId", "invalid_string"},
	}
	for i, c := range cases {
		a := ok
		c.edit(&a)
		atts := []Attachment{ok, ok, a}
		p := ValidateAttachments(atts, 0)
		if c.code == "" {
			if len(p) != 0 {
				t.Errorf("case %d: unexpected %+v", i, p)
			}
			continue
		}
		if len(p) != 1 || p[0].Field != "attachments.2."+c.field || p[0].Code != c.code {
			t.Errorf("case %d: got %+v, want attachments.2.%s %s", i, p, c.field, c.code)
		}
		// Build refuses the same attachment rather than emit its header.
		m := baseMessage()
		m.Attachments = atts
		var inv *InvalidError
		if _, err := Build(m); !errors.As(err, &inv) || inv.Problems[0].Field != p[0].Field {
			t.Errorf("case %d: Build err = %v", i, err)
		}
	}
}
