package message

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxMessageBytes is the largest message Build produces (the API's 40 MB).
const MaxMessageBytes = 40 << 20

// ErrTooLarge is returned by Build when the message would exceed
// MaxMessageBytes.
var ErrTooLarge = errors.New("message: message exceeds 40 MB")

// ErrLineTooLong is returned by Build when a structured header (an address,
// a List-Unsubscribe URL) holds a word that cannot be folded under the
// 998-character line limit of RFC 5322. Unstructured values never cause it:
// they fall back to encoded-words, which can be split anywhere.
var ErrLineTooLong = errors.New("message: header line longer than 998 characters")

// Address is a mailbox. Email is validated by the caller.
type Address struct {
	Name, Email string
}

// Attachment is one attached file. Content is the decoded bytes.
// Inline parts go into multipart/related and need a ContentID, which the
// HTML refers to as "cid:<ContentID>".
type Attachment struct {
	Filename    string
	Content     []byte
	ContentType string
	ContentID   string // with or without surrounding angle brackets
	Inline      bool
}

// Message is everything Build needs for one recipient's email.
type Message struct {
	From    Address
	To      []Address
	ReplyTo *Address
	Subject string
	HTML    string // the rendered HTML body
	Text    string // optional; when empty, HTMLToText(HTML)
	// Headers are custom headers from the API. Build checks them with
	// ValidateHeaders and fails with an *InvalidError rather than emit a
	// header that could override Herald's.
	Headers     map[string]string
	Attachments []Attachment
	// MessageID is the full "<id@domain>". When empty Build makes one on the
	// From domain; callers that must record it pass NewMessageID's result.
	MessageID string
	// Date is the Date header; callers pass their injected clock's time.
	// The zero value falls back to time.Now so a message never claims year 1.
	Date time.Time
	// ListUnsubscribe is the one-click unsubscribe URL for marketing mail.
	// When set, List-Unsubscribe-Post: List-Unsubscribe=One-Click is added
	// (RFC 8058).
	ListUnsubscribe string
	// ListUnsubscribeMailto is an optional mailto alternative, with or
	// without the "mailto:" scheme.
	ListUnsubscribeMailto string
}

// InvalidError reports input that Build refuses, with the same problems the
// Validate functions return, so the caller can answer with field paths.
type InvalidError struct {
	Problems []Problem
}

func (e *InvalidError) Error() string {
	if len(e.Problems) == 0 {
		return "message: invalid message"
	}
	p := e.Problems[0]
	return fmt.Sprintf("message: %s: %s", p.Field, p.Message)
}

// Build returns the message as CRLF-terminated bytes. It runs once per
// recipient, so it sizes its buffer ahead and writes every part straight
// into it.
func Build(m Message) ([]byte, error) {
	if err := checkMessage(&m); err != nil {
		return nil, err
	}
	m.HTML = wrapFragment(m.HTML)
	if m.Text != "" {
		return build(&m, m.Text)
	}
	if len(m.HTML) > MaxMessageBytes { // too large whatever its text
		return nil, ErrTooLarge
	}
	// The derived text is only needed until it is encoded.
	buf := textBuffers.Get().(*[]byte)
	defer putTextBuffer(buf)
	*buf = deriveText(*buf, m.HTML)
	return build(&m, *buf)
}

// build writes a checked message whose text part is text: the caller's, or
// the one derived from the HTML.
func build[T string | []byte](m *Message, text T) ([]byte, error) {
	size, minimum := estimate(m, len(text))
	if minimum > MaxMessageBytes {
		return nil, ErrTooLarge
	}
	var b bytes.Buffer
	b.Grow(size)
	// One random base for all boundaries of this message; each nesting level
	// appends its own letter, so boundaries differ without more randomness.
	base := "=_" + rand.Text()
	layout := newLayout(m.Attachments)
	if err := writeHeaders(&b, m, layout, base); err != nil {
		return nil, err
	}
	writeBody(&b, m, text, layout, base)
	if b.Len() > MaxMessageBytes {
		return nil, ErrTooLarge
	}
	return b.Bytes(), nil
}

// checkMessage refuses what would produce a broken or misleading message.
func checkMessage(m *Message) error {
	if !plausibleEmail(m.From.Email) {
		return fmt.Errorf("message: invalid From address %q", m.From.Email)
	}
	if len(m.To) == 0 {
		return errors.New("message: no recipient")
	}
	for _, a := range m.To {
		if !plausibleEmail(a.Email) {
			return fmt.Errorf("message: invalid To address %q", a.Email)
		}
	}
	if m.ReplyTo != nil && !plausibleEmail(m.ReplyTo.Email) {
		return fmt.Errorf("message: invalid Reply-To address %q", m.ReplyTo.Email)
	}
	if m.MessageID != "" && !validMessageID(m.MessageID) {
		return fmt.Errorf("message: invalid Message-ID %q", m.MessageID)
	}
	if url, mailto := unsubscribeURIs(m); !validURI(url) || !validURI(mailto) {
		return fmt.Errorf("message: invalid List-Unsubscribe URI %q %q", url, mailto)
	}
	problems := ValidateHeaders(m.Headers)
	for i := range m.Attachments {
		problems = append(problems, checkAttachment(i, &m.Attachments[i])...)
	}
	if len(problems) > 0 {
		return &InvalidError{Problems: problems}
	}
	return nil
}

// plausibleEmail is a last line of defence, not validation: the caller has
// validated the address; this only keeps header syntax intact.
func plausibleEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f || s[i] == '<' || s[i] == '>' {
			return false
		}
	}
	return true
}

// estimate returns a buffer size large enough for the whole message in the
// common case, and a lower bound of its size to refuse huge input before
// encoding anything.
func estimate(m *Message, textLen int) (size, minimum int) {
	const headerRoom = 2048 // fixed headers, part headers, boundaries
	minimum = textLen + len(m.HTML)
	size = headerRoom + qpLen(textLen) + qpLen(len(m.HTML))
	for k, v := range m.Headers {
		size += 3*(len(k)+len(v)) + 8 // RFC 2047 can triple a value
	}
	for _, a := range m.To {
		size += 3*(len(a.Name)+len(a.Email)) + 8
	}
	size += 3*(len(m.Subject)+len(m.From.Name)) + len(m.ListUnsubscribe) + len(m.ListUnsubscribeMailto)
	for i := range m.Attachments {
		a := &m.Attachments[i]
		b64 := base64Len(len(a.Content))
		minimum += b64
		size += b64 + 512 + 12*len(a.Filename) + len(a.ContentType) + len(a.ContentID)
	}
	return size, minimum
}
