package message

import "math/bits"

// Quoted-printable encoding (RFC 2045 §6.7) of the text parts, written
// straight into the message buffer. It produces the bytes of
// mime/quotedprintable's Writer, which goes through every byte with a call
// and copies each line twice; here runs of bytes that stay as they are
// are copied a line's worth at a time. One difference: the Writer drops an
// LF that follows a CR and bytes it encodes ("\r=\n" loses its second line
// end); here every LF not right after a CR ends a line.

// qpMaxCol is how many characters a line holds before the "=" of a soft
// line break, which makes the 76 of RFC 2045.
const qpMaxCol = 75

// qpLiteral marks the bytes written as themselves: printable ASCII except
// "=", and space and tab (encoded only at the end of a line). Read-only.
var qpLiteral = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '='
	}
	t[' '], t['\t'] = true, true
	return t
}()

// qpEncoder holds the state carried from byte to byte.
type qpEncoder struct {
	col int // characters on the current output line
}

// appendQuotedPrintable appends s quoted-printable encoded. Every line end
// (LF, CR or CRLF) becomes CRLF, a space or tab before a line end is
// encoded, and lines are broken softly to stay within 76 characters.
func appendQuotedPrintable[T string | []byte](dst []byte, s T) []byte {
	var e qpEncoder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case qpLiteral[c]:
			// Copy the run a line's worth at a time, breaking the line
			// before a character that would pass qpMaxCol.
			end := i + literalRun(s[i:])
			for i < end {
				if e.col == qpMaxCol {
					dst = e.softBreak(dst)
				}
				n := min(end-i, qpMaxCol-e.col)
				dst = append(dst, s[i:i+n]...)
				e.col += n
				i += n
			}
			continue
		case c == '\n' && i > 0 && s[i-1] == '\r': // the CR broke the line
		case c == '\r' || c == '\n':
			dst = e.hardBreak(dst)
		default:
			dst = e.encoded(dst, c)
		}
		i++
	}
	return e.encodeTrailingSpace(dst)
}

// literalRun returns the length of the run of qpLiteral bytes that s
// starts with. Text and HTML are mostly such runs, so it tests eight bytes
// at a time while it can.
func literalRun[T string | []byte](s T) int {
	i := 0
	for i+8 <= len(s) {
		odd := unusual8(load64(s, i))
		if odd == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(odd) / 8
		if s[i] != '\t' { // the only unusual byte that is literal
			return i
		}
		i++
	}
	for i < len(s) && qpLiteral[s[i]] {
		i++
	}
	return i
}

// unusual8 flags the bytes of x (eight bytes, little-endian) outside
// ' '..'~' and "=": the lowest byte whose high bit it sets is the first such
// byte. Each term sets the high bit of some bytes outside the range:
// x - 0x20 those below ' ', x itself those from 0x80, x + 1 0x7f, and
// (x ^ '=') - 1 "=". A borrow or carry only starts at a flagged byte and
// moves up, so it can flag a later byte wrongly but never an earlier one.
func unusual8(x uint64) uint64 {
	below, del, eq := x-' '*ones, x+ones, (x^'='*ones)-ones
	return (below | x | del | eq) & highs
}

// encoded appends c as "=XX", on the next line when it does not fit.
func (e *qpEncoder) encoded(dst []byte, c byte) []byte {
	const hex = "0123456789ABCDEF"
	if e.col > qpMaxCol-3 {
		dst = e.softBreak(dst)
	}
	e.col += 3
	return append(dst, '=', hex[c>>4], hex[c&15])
}

func (e *qpEncoder) softBreak(dst []byte) []byte {
	e.col = 0
	return append(dst, "=\r\n"...)
}

func (e *qpEncoder) hardBreak(dst []byte) []byte {
	dst = e.encodeTrailingSpace(dst)
	e.col = 0
	return append(dst, "\r\n"...)
}

// encodeTrailingSpace encodes a space or tab ending the line, which
// transport would be free to strip (RFC 2045 §6.7, rule 3).
func (e *qpEncoder) encodeTrailingSpace(dst []byte) []byte {
	if e.col == 0 {
		return dst
	}
	last := dst[len(dst)-1]
	if last != ' ' && last != '\t' {
		return dst
	}
	e.col--
	return e.encoded(dst[:len(dst)-1], last)
}
