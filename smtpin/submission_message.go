package smtpin

import (
	"bytes"
	"net/mail"
	"strings"

	"github.com/emersion/go-smtp"
)

// badMessage refuses a message that cannot be read.
func badMessage(msg string) *smtp.SMTPError {
	return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: msg}
}

// checkFromField checks that each address of the message's From field is
// at a verified domain of the project.
func (ss *submissionSession) checkFromField(data []byte) error {
	from, err := fromAddresses(data)
	if err != nil {
		return err
	}
	checked := map[string]bool{}
	for _, address := range from {
		domain := strings.ToLower(domainOf(address))
		if checked[domain] {
			continue
		}
		checked[domain] = true
		if err := ss.checkSender(address); err != nil {
			return err
		}
	}
	return nil
}

// fromAddresses returns the addresses of the message's one From field. It
// reads the header with net/mail, the reader app/message reads the From
// of the message it sends with, on the same bytes (line ends already
// CRLF), so that both see the same addresses (FuzzFromField).
func fromAddresses(data []byte) ([]string, *smtp.SMTPError) {
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return nil, badMessage("The message header cannot be read: " + err.Error())
	}
	if n := len(msg.Header["From"]); n != 1 {
		return nil, badMessage("The message must have exactly one From field")
	}
	list, err := msg.Header.AddressList("From")
	if err != nil || len(list) == 0 {
		return nil, badMessage("The From field has no readable address")
	}
	from := make([]string, len(list))
	for i, a := range list {
		from[i] = a.Address
	}
	return from, nil
}

// crlfLines gives every line a CRLF ending: a bare LF or CR becomes CRLF,
// the rule app/message applies to the message it sends, so that the From
// checked here is the From sent. A message already in CRLF, as SMTP
// clients send, is returned without a copy.
func crlfLines(b []byte) []byte {
	n := bytes.Count(b, []byte("\r\n"))
	if bytes.Count(b, []byte{'\n'}) == n && bytes.Count(b, []byte{'\r'}) == n {
		return b
	}
	out := make([]byte, 0, len(b)+len(b)/32+16)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\r':
			out = append(out, '\r', '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case '\n':
			out = append(out, '\r', '\n')
		default:
			out = append(out, c)
		}
	}
	return out
}
