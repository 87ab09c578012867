package dkim

import (
	"bytes"
	"errors"
)

// signedFields are the header fields Herald signs when present: the ones a
// reader sees or a client acts on (RFC 6376 §5.4.1), plus the one-click
// unsubscribe pair, which RFC 8058 §4 requires to be covered by the signature.
var signedFields = [...]string{
	"From", "To", "Cc", "Subject", "Date", "Message-ID", "Reply-To",
	"MIME-Version", "Content-Type", "Content-Transfer-Encoding",
	"List-Unsubscribe", "List-Unsubscribe-Post", "In-Reply-To", "References",
}

// ErrFromField is returned when a message has no From field, or more than one:
// DKIM requires From to be signed (RFC 6376 §5.4), and a second From is the
// classic way to make a signed message display another sender.
var ErrFromField = errors.New("dkim: message must have exactly one From field")

// headerKeys lists the signedFields present in msg's header for h=. Each is
// listed once more than it occurs ("oversigned", RFC 6376 §5.4.2): a verifier
// treats the extra entry as an empty field, so a copy of the field added
// anywhere later, such as a second From or Subject placed above ours where
// mail clients show it, breaks the signature. Absent fields are not listed.
// Only the header is scanned; it ends at the first empty line.
func headerKeys(msg []byte) ([]string, error) {
	var counts [len(signedFields)]int
	total := 0
	for name := range fieldNames(msg) {
		if i := fieldIndex(name); i >= 0 {
			counts[i]++
			total++
		}
	}
	if counts[0] != 1 { // signedFields[0] is From
		return nil, ErrFromField
	}
	keys := make([]string, 0, 2*total)
	for i, n := range counts {
		for j := 0; n > 0 && j <= n; j++ {
			keys = append(keys, signedFields[i])
		}
	}
	return keys, nil
}

// fieldNames yields the name of each header field of msg, skipping
// continuation lines. It accepts bare LF as well as CRLF line ends.
func fieldNames(msg []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for rest := msg; len(rest) > 0; {
			var line []byte
			line, rest, _ = bytes.Cut(rest, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) == 0 {
				return // end of header
			}
			if line[0] == ' ' || line[0] == '\t' {
				continue
			}
			name, _, ok := bytes.Cut(line, []byte(":"))
			if ok && !yield(bytes.TrimRight(name, " \t")) {
				return
			}
		}
	}
}

// fieldIndex finds name in signedFields, ignoring case as RFC 5322 does.
func fieldIndex(name []byte) int {
	for i, f := range signedFields {
		if asciiEqualFold(name, f) {
			return i
		}
	}
	return -1
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
