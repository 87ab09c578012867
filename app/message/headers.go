package message

import (
	"bytes"
	"maps"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// writeHeaders writes the top-level header and the blank line after it.
// Herald's fields come first; custom fields follow in name order, so the
// same input always gives the same bytes. The only error is ErrLineTooLong.
func writeHeaders(b *bytes.Buffer, m *Message, l layout, base string) error {
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	id := m.MessageID
	if id == "" {
		id = NewMessageID(domainOf(m.From.Email))
	}
	var err error
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	keep(simpleHeader(b, "Date", date.Format(time.RFC1123Z)))
	keep(addressHeader(b, "From", m.From))
	keep(addressHeader(b, "To", m.To...))
	if m.ReplyTo != nil {
		keep(addressHeader(b, "Reply-To", *m.ReplyTo))
	}
	keep(textHeader(b, "Subject", m.Subject))
	keep(simpleHeader(b, "Message-ID", id))
	keep(unsubscribeHeaders(b, m))
	for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
		keep(textHeader(b, name, m.Headers[name]))
	}
	b.WriteString("MIME-Version: 1.0\r\n")
	keep(multipartHeader(b, l.top(), base))
	b.WriteString("\r\n")
	return err
}

// textHeader writes a free-text field such as Subject.
func textHeader(b *bytes.Buffer, name, value string) error {
	h := beginHeader(b, name)
	h.unstructured(stripLines(value))
	return h.end()
}

// simpleHeader writes an ASCII value Herald made itself, folded at spaces.
func simpleHeader(b *bytes.Buffer, name, value string) error {
	h := beginHeader(b, name)
	h.words(value)
	return h.end()
}

// addressHeader writes a comma-separated address list. net/mail quotes or
// RFC 2047 encodes each display name; CR and LF are removed from names
// first, so not even an encoded newline reaches a reader.
func addressHeader(b *bytes.Buffer, name string, list ...Address) error {
	h := beginHeader(b, name)
	for i, a := range list {
		name, addr := stripLines(a.Name), asciiEmail(a.Email)
		s := (&mail.Address{Name: name, Address: addr}).String()
		sep := ""
		if i < len(list)-1 {
			sep = "," // part of the last word, so that it counts when folding
		}
		if name != "" && (strings.Contains(s, "=?") || longestWord(s)+h.start+1 > foldAt) {
			// A name to encode, or with a word too long for a line: as
			// encoded-words that fit the lines (net/mail's can be 75
			// characters after "From: ").
			h.encoded(name)
			h.word("<" + addr + ">" + sep)
			continue
		}
		h.words(s + sep)
	}
	return h.end()
}

// unsubscribeHeaders writes List-Unsubscribe (RFC 2369), with the one-click
// POST marker of RFC 8058 when there is a URL to post to. checkMessage has
// vetted both URIs.
func unsubscribeHeaders(b *bytes.Buffer, m *Message) error {
	url, mailto := unsubscribeURIs(m)
	if url == "" && mailto == "" {
		return nil
	}
	h := beginHeader(b, "List-Unsubscribe")
	switch {
	case url != "" && mailto != "":
		h.word("<" + url + ">,")
		h.word("<" + mailto + ">")
	case url != "":
		h.word("<" + url + ">")
	default:
		h.word("<" + mailto + ">")
	}
	err := h.end()
	if url != "" {
		b.WriteString("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n")
	}
	return err
}

// unsubscribeURIs returns the trimmed URIs, the mailto one with its scheme.
// The HTTPS URL comes first: it is the one-click method receivers prefer.
func unsubscribeURIs(m *Message) (url, mailto string) {
	url, mailto = strings.TrimSpace(m.ListUnsubscribe), strings.TrimSpace(m.ListUnsubscribeMailto)
	if mailto != "" && !strings.HasPrefix(strings.ToLower(mailto), "mailto:") {
		mailto = "mailto:" + mailto
	}
	return url, mailto
}

// validURI accepts what can sit between angle brackets in a header.
func validURI(u string) bool {
	for i := 0; i < len(u); i++ {
		if c := u[i]; c <= ' ' || c > '~' || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// validMessageID accepts "<left@right>" with no whitespace or brackets
// inside, which is what every mail system can store and compare.
func validMessageID(id string) bool {
	if len(id) < 5 || len(id) > 250 || id[0] != '<' || id[len(id)-1] != '>' {
		return false
	}
	inner := id[1 : len(id)-1]
	at := strings.IndexByte(inner, '@')
	return at > 0 && at < len(inner)-1 && validURI(inner)
}

func domainOf(email string) string {
	return email[strings.LastIndexByte(email, '@')+1:]
}
