package message

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strings"
	"time"
)

// ErrInvalidSubmission is wrapped by every refusal of ParseSubmitted: a
// message an SMTP client wrote that cannot be sent as it is. The error's
// text says what is wrong, in words a client's log can show.
var ErrInvalidSubmission = errors.New("message: invalid submitted message")

// Submitted is a message as an SMTP client wrote it (RFC 5322 and MIME),
// parsed once for all of its recipients. Its header fields and MIME
// structure are kept byte for byte; Prepare only removes what must not be
// sent (Bcc and Resent-Bcc, Herald's X-Herald-* instructions), adds what
// Herald adds to every email, and, when asked, rewrites the HTML for
// tracking.
type Submitted struct {
	raw       []byte  // the whole message, every line ending in CRLF
	fields    []field // the top-level header fields, in order
	bodyStart int     // offset of the body; len(raw) when there is none
	blankLine bool    // whether a blank line ends the header (a body follows)

	from      []Address
	subject   string
	messageID string
	hasDate   bool
	marketing bool
}

// SubmitOptions are what one recipient's copy needs.
type SubmitOptions struct {
	// MessageID is the "<id@domain>" written when the message has none;
	// empty: NewMessageID on the From domain.
	MessageID string
	// Date is written when the message has no Date field; zero: now.
	Date time.Time
	// ListUnsubscribe and ListUnsubscribeMailto are written, with
	// List-Unsubscribe-Post for the URL, only when the message asked for
	// it with "X-Herald-Marketing: true" (see Marketing); the client's own
	// List-Unsubscribe fields are then replaced.
	ListUnsubscribe, ListUnsubscribeMailto string
	// RewriteHTML, when set, is given the decoded text of every text/html
	// part that is not an attachment and returns it with Herald's links
	// and open pixel. The part is then encoded again as it was. When nil,
	// the body is left exactly as written.
	RewriteHTML func(html string) (string, error)
}

// ParseSubmitted checks and parses a message an SMTP client submitted.
// Lines ending in a bare LF or CR are given CRLF (the message is signed
// and sent that way); a line over 998 characters, a malformed header
// field, or a From field that is missing, repeated or unreadable is
// refused with an error wrapping ErrInvalidSubmission. A broken MIME body
// is not refused: it is sent as written.
func ParseSubmitted(raw []byte) (*Submitted, error) {
	if len(raw) > MaxMessageBytes {
		return nil, ErrTooLarge
	}
	raw = crlfLines(raw)
	if line := longLine(raw); line > 0 {
		return nil, fmt.Errorf("%w: line %d is longer than 998 characters", ErrInvalidSubmission, line)
	}
	s := &Submitted{raw: raw}
	var err error
	s.fields, s.bodyStart, s.blankLine, err = scanFields(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSubmission, err)
	}
	if err := s.readHeader(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSubmission, err)
	}
	if len(raw) > MaxMessageBytes {
		return nil, ErrTooLarge // the CRs added to bare LFs can make it larger
	}
	return s, nil
}

// readHeader reads the fields whose meaning Herald needs. From is read
// with net/mail, the reader the SMTP listener checks the sender's domain
// with, so that both see the same address.
func (s *Submitted) readHeader() error {
	msg, err := mail.ReadMessage(bytes.NewReader(s.raw[:s.bodyStart]))
	if err != nil {
		return fmt.Errorf("header: %v", err)
	}
	h := msg.Header
	if n := len(h["From"]); n != 1 {
		return fmt.Errorf("the message has %d From fields: it needs exactly one", n)
	}
	from, err := h.AddressList("From")
	if err != nil || len(from) == 0 {
		return fmt.Errorf("the From field has no readable address: %q", h.Get("From"))
	}
	for _, a := range from {
		s.from = append(s.from, Address{Name: a.Name, Email: a.Address})
	}
	s.messageID = strings.TrimSpace(h.Get("Message-Id"))
	s.hasDate = len(h["Date"]) > 0
	s.marketing = strings.EqualFold(strings.TrimSpace(h.Get("X-Herald-Marketing")), "true")
	s.subject = h.Get("Subject")
	if dec, err := new(mime.WordDecoder).DecodeHeader(s.subject); err == nil {
		s.subject = dec
	}
	return nil
}

// From is the first address of the From field (the author; RFC 5322 lets a
// message name several, each of which the listener checks).
func (s *Submitted) From() Address { return s.from[0] }

// FromAll is every address of the From field.
func (s *Submitted) FromAll() []Address { return append([]Address(nil), s.from...) }

// Subject is the Subject field, RFC 2047 words decoded.
func (s *Submitted) Subject() string { return s.subject }

// MessageID is the message's own Message-ID, or "" when it has none.
func (s *Submitted) MessageID() string { return s.messageID }

// Marketing reports whether the message carries "X-Herald-Marketing: true".
func (s *Submitted) Marketing() bool { return s.marketing }

// Prepare returns one recipient's copy, ready to be DKIM-signed: Herald's
// fields first (Message-ID and Date when missing, List-Unsubscribe for
// marketing mail), then the client's fields as written without Bcc,
// Resent-Bcc and X-Herald-*, then the body, its HTML rewritten when
// o.RewriteHTML is set.
func (s *Submitted) Prepare(o SubmitOptions) ([]byte, error) {
	body, bodyCTE, err := s.body(o.RewriteHTML)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(s.raw) - s.bodyStart + len(body) + s.bodyStart + 1024)
	if err := s.writeAdded(&b, o); err != nil {
		return nil, err
	}
	replaceUnsubscribe := s.marketing && (o.ListUnsubscribe != "" || o.ListUnsubscribeMailto != "")
	for _, f := range s.fields {
		switch name := strings.ToLower(f.name); {
		case name == "bcc", name == "resent-bcc", strings.HasPrefix(name, "x-herald-"):
			continue
		case replaceUnsubscribe && (name == "list-unsubscribe" || name == "list-unsubscribe-post"):
			continue
		case bodyCTE != "" && name == "content-transfer-encoding":
			continue // replaced below
		}
		b.Write(s.raw[f.start:f.end])
	}
	if bodyCTE != "" {
		b.WriteString("Content-Transfer-Encoding: " + bodyCTE + "\r\n")
	}
	if s.blankLine {
		b.WriteString("\r\n")
	}
	b.Write(body)
	if b.Len() > MaxMessageBytes {
		return nil, ErrTooLarge
	}
	return b.Bytes(), nil
}

// writeAdded writes the fields Herald adds.
func (s *Submitted) writeAdded(b *bytes.Buffer, o SubmitOptions) error {
	if s.messageID == "" {
		id := o.MessageID
		if id == "" {
			id = NewMessageID(domainOf(asciiEmail(s.From().Email)))
		}
		if !validMessageID(id) {
			return fmt.Errorf("message: invalid Message-ID %q", id)
		}
		if err := simpleHeader(b, "Message-ID", id); err != nil {
			return err
		}
	}
	if !s.hasDate {
		date := o.Date
		if date.IsZero() {
			date = time.Now()
		}
		if err := simpleHeader(b, "Date", date.Format(time.RFC1123Z)); err != nil {
			return err
		}
	}
	if !s.marketing {
		return nil
	}
	m := &Message{ListUnsubscribe: o.ListUnsubscribe, ListUnsubscribeMailto: o.ListUnsubscribeMailto}
	if url, mailto := unsubscribeURIs(m); !validURI(url) || !validURI(mailto) {
		return fmt.Errorf("message: invalid List-Unsubscribe URI %q %q", url, mailto)
	}
	return unsubscribeHeaders(b, m)
}

// body returns the body to send and, when the top-level entity had to
// change its transfer encoding, the new one.
func (s *Submitted) body(rewrite func(string) (string, error)) ([]byte, string, error) {
	body := s.raw[s.bodyStart:]
	if rewrite == nil || !s.blankLine { // no blank line: no body to rewrite
		return body, "", nil
	}
	w := &htmlRewriter{rewrite: rewrite}
	ch, err := w.entity(s.raw, s.fields, body, 0)
	if err != nil || ch == nil {
		return body, "", err
	}
	return ch.body, ch.cte, nil
}
