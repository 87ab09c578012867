package message

import (
	"bytes"
	"encoding/base64"
)

// layout says which multipart levels a message needs.
type layout struct {
	inline, regular int // counts of inline and regular attachments
}

func newLayout(atts []Attachment) layout {
	var l layout
	for i := range atts {
		if atts[i].Inline {
			l.inline++
		} else {
			l.regular++
		}
	}
	return l
}

// Multipart levels; each also names its boundary's suffix.
const (
	alternative = 'a'
	related     = 'r'
	mixed       = 'm'
)

// top is the outermost level, whose Content-Type goes into the message
// header.
func (l layout) top() byte {
	switch {
	case l.regular > 0:
		return mixed
	case l.inline > 0:
		return related
	}
	return alternative
}

func subtype(level byte) string {
	switch level {
	case mixed:
		return "mixed"
	case related:
		return "related"
	}
	return "alternative"
}

// multipartHeader writes the Content-Type of a multipart level. Boundaries
// contain "=", so they are quoted.
func multipartHeader(b *bytes.Buffer, level byte, base string) error {
	h := beginHeader(b, "Content-Type")
	h.word("multipart/" + subtype(level) + ";")
	h.word(`boundary="` + base + "_" + string(level) + `"`)
	return h.end()
}

// delimiter writes a boundary line. The CRLF in front of it belongs to the
// delimiter (RFC 2046 §5.1.1), so parts never end with one of their own,
// except the first delimiter, which follows a header's blank line directly.
func delimiter(b *bytes.Buffer, base string, level byte, first, last bool) {
	if !first {
		b.WriteString("\r\n")
	}
	b.WriteString("--")
	b.WriteString(base)
	b.WriteByte('_')
	b.WriteByte(level)
	if last {
		b.WriteString("--")
		return
	}
	b.WriteString("\r\n")
}

// writeBody writes the outermost multipart, recursing inwards. The text
// part's body is the caller's string or the bytes derived from the HTML,
// encoded as they are, without a copy.
func writeBody[T string | []byte](b *bytes.Buffer, m *Message, text T, l layout, base string) {
	writeLevel(b, m, text, l, base, l.top())
	b.WriteString("\r\n")
}

// writeLevel writes the body of one multipart level: its first part is the
// next level in (or the text and HTML), followed by its attachments.
func writeLevel[T string | []byte](b *bytes.Buffer, m *Message, text T, l layout, base string, level byte) {
	delimiter(b, base, level, true, false)
	switch level {
	case alternative:
		writeTextPart(b, "text/plain; charset=utf-8", text)
		delimiter(b, base, level, false, false)
		writeTextPart(b, "text/html; charset=utf-8", m.HTML)
	case related, mixed:
		inner := byte(alternative)
		if level == mixed && l.inline > 0 {
			inner = related
		}
		// Errors cannot happen here: the boundary is ASCII and short.
		_ = multipartHeader(b, inner, base)
		b.WriteString("\r\n")
		writeLevel(b, m, text, l, base, inner)
		for i := range m.Attachments {
			if a := &m.Attachments[i]; a.Inline == (level == related) {
				delimiter(b, base, level, false, false)
				writeAttachment(b, a)
			}
		}
	}
	delimiter(b, base, level, false, true)
}

// writeTextPart writes a quoted-printable UTF-8 part, encoding straight into
// the buffer's spare capacity.
func writeTextPart[T string | []byte](b *bytes.Buffer, contentType string, body T) {
	b.WriteString("Content-Type: ")
	b.WriteString(contentType)
	b.WriteString("\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	b.Write(appendQuotedPrintable(b.AvailableBuffer(), body))
}

// writeBase64 writes data in lines of 76 characters (57 input bytes), CRLF
// between lines, encoding straight into the buffer's spare capacity.
func writeBase64(b *bytes.Buffer, data []byte) {
	const in = 57
	for i := 0; i < len(data); i += in {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.Write(base64.StdEncoding.AppendEncode(b.AvailableBuffer(), data[i:min(i+in, len(data))]))
	}
}

func base64Len(n int) int {
	lines := (n + 56) / 57
	return base64.StdEncoding.EncodedLen(n) + 2*lines
}

// qpLen estimates the quoted-printable size of n bytes for sizing the
// buffer. A quarter more covers ASCII text and HTML ("=" becomes "=3D", soft
// breaks every 76 characters) without a pass over the bytes; mostly
// non-ASCII text (up to three times larger) makes the buffer grow once or
// twice instead.
func qpLen(n int) int {
	return n + n/4
}
