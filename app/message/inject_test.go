package message

import (
	"errors"
	"net/mail"
	"strings"
	"testing"
)

// TestInjectionNeutralised covers values Build cleans rather than refuses:
// the subject and display names lose their line breaks, so the text stays
// in its own field instead of starting a new one.
func TestInjectionNeutralised(t *testing.T) {
	m := baseMessage()
	m.Subject = "Hi\r\nBcc: victim@example.net\r\n\r\n<b>body</b>"
	m.From.Name = "Evil\r\nBcc: victim@example.net"
	m.To[0].Name = "Ann\nX-Injected: yes"
	m.ReplyTo = &Address{Name: "R\rTo: other@example.net", Email: "r@example.com"}
	raw := mustBuild(t, m)
	h, leaves := parse(t, raw)
	for _, k := range []string{"Bcc", "X-Injected"} {
		if _, ok := h[k]; ok {
			t.Errorf("header %s was injected", k)
		}
	}
	if len(h["To"]) != 1 || len(leaves) != 2 {
		t.Errorf("To fields %q, %d parts", h["To"], len(leaves))
	}
	if got := decodeHeader(t, h.Get("Subject")); got != "Hi Bcc: victim@example.net <b>body</b>" {
		t.Errorf("Subject = %q", got)
	}
	from, err := mail.ParseAddress(h.Get("From"))
	if err != nil || from.Name != "Evil Bcc: victim@example.net" || from.Address != "news@example.com" {
		t.Errorf("From = %+v, %v", from, err)
	}
	if to, err := mail.ParseAddress(h.Get("To")); err != nil || to.Name != "Ann X-Injected: yes" {
		t.Errorf("To = %+v, %v", to, err)
	}
}

// TestInjectionRefused covers fields whose line breaks Build refuses: they
// would need guessing to repair, and the caller should have validated them.
func TestInjectionRefused(t *testing.T) {
	cases := map[string]func(*Message){
		"header name": func(m *Message) {
			m.Headers = map[string]string{"X-A\r\nBcc": "victim@example.net"}
		},
		"header value": func(m *Message) {
			m.Headers = map[string]string{"X-A": "1\r\nBcc: victim@example.net"}
		},
		"reserved header": func(m *Message) { m.Headers = map[string]string{"BCC": "victim@example.net"} },
		"filename": func(m *Message) {
			m.Attachments = []Attachment{{Filename: "a.txt\"\r\nContent-Type: text/html", ContentType: "text/plain"}}
		},
		"content id": func(m *Message) {
			m.Attachments = []Attachment{{Filename: "a.png", ContentType: "image/png", ContentID: "a>\r\nX: y", Inline: true}}
		},
		"content type": func(m *Message) {
			m.Attachments = []Attachment{{Filename: "a.txt", ContentType: "text/plain;\r\nBcc: x@y"}}
		},
		"from address": func(m *Message) { m.From.Email = "a@example.com\r\nBcc: x@y" },
		"to address":   func(m *Message) { m.To[0].Email = "a@example.com>\r\nBcc: <x@y" },
		"no recipient": func(m *Message) { m.To = nil },
		"reply-to":     func(m *Message) { m.ReplyTo = &Address{Email: "no-at-sign"} },
		"message id":   func(m *Message) { m.MessageID = "<a@b>\r\nBcc: x@y" },
		"unsubscribe":  func(m *Message) { m.ListUnsubscribe = "https://x/u>\r\nBcc: <x@y" },
		"unsub mailto": func(m *Message) { m.ListUnsubscribeMailto = "u@x\nBcc: y@z" },
	}
	for name, edit := range cases {
		m := baseMessage()
		edit(&m)
		raw, err := Build(m)
		if err == nil {
			t.Errorf("%s: built %q", name, raw)
		}
	}
	m := baseMessage()
	m.Headers = map[string]string{"X-A": "1\r\nBcc: victim@example.net"}
	var inv *InvalidError
	if _, err := Build(m); !errors.As(err, &inv) || inv.Problems[0].Field != "headers.X-A" ||
		!strings.Contains(err.Error(), "headers.X-A") {
		t.Errorf("err = %v", err)
	}
}
