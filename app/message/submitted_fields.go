package message

import (
	"bytes"
	"fmt"
	"strings"
)

// field is one header field of a submitted message or of a MIME part: its
// name as written and the byte range of the whole field, folded lines and
// final CRLF included, in the slice it was scanned from.
type field struct {
	name       string
	start, end int
}

var crlf = []byte("\r\n")

// crlfLines returns b with every line ending a CRLF: a bare LF or a bare
// CR becomes CRLF (RFC 5322 allows neither; signing and SMTP need CRLF).
// A message already in CRLF, which is what SMTP clients send, is returned
// as it is, without a copy.
func crlfLines(b []byte) []byte {
	n := bytes.Count(b, crlf)
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

// longLine returns the number (from 1) of the first line longer than the
// 998 characters RFC 5322 allows, or 0 when there is none.
func longLine(b []byte) int {
	for line := 1; ; line++ {
		i := bytes.Index(b, crlf)
		if i < 0 {
			if len(b) > maxLine {
				return line
			}
			return 0
		}
		if i > maxLine {
			return line
		}
		b = b[i+2:]
	}
}

// scanFields reads the header fields at the start of b up to the blank
// line that ends them. It returns the fields, where the body starts, and
// whether there was a blank line (without one, the whole of b is header).
// Offsets are in b.
func scanFields(b []byte) (fields []field, bodyStart int, blankLine bool, err error) {
	for i, n := 0, 1; i < len(b); n++ {
		end := len(b)
		if j := bytes.Index(b[i:], crlf); j >= 0 {
			end = i + j + 2
		}
		line := b[i:end]
		switch {
		case bytes.Equal(line, crlf):
			return fields, end, true, nil
		case line[0] == ' ' || line[0] == '\t':
			if len(fields) == 0 {
				return nil, 0, false, fmt.Errorf("header line %d continues a field that does not exist", n)
			}
			fields[len(fields)-1].end = end
		default:
			colon := bytes.IndexByte(line, ':')
			if colon <= 0 || !isFieldName(string(line[:colon])) {
				return nil, 0, false, fmt.Errorf("header line %d is not a field (a name, a colon, a value): %q",
					n, truncate(line, 60))
			}
			fields = append(fields, field{name: string(line[:colon]), start: i, end: end})
		}
		i = end
	}
	return fields, len(b), false, nil
}

// fieldValue returns the unfolded value of the first field named name
// (compared without case), or "".
func fieldValue(src []byte, fields []field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			v := src[f.start+len(f.name)+1 : f.end]
			return strings.TrimSpace(strings.ReplaceAll(string(v), "\r\n", ""))
		}
	}
	return ""
}

func truncate(b []byte, n int) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
