package dkim

import (
	"bytes"
	"crypto/sha256"
	"slices"
)

// relaxedBodyHash is the sha256 of the body canonicalized as §3.4.4 says:
// whitespace runs made one space, whitespace at line ends removed, empty
// lines at the end removed, a non-empty body ending in CRLF.
//
// It hashes the canonical body as it makes it, in pieces of a few
// kilobytes, without holding all of it, and copies runs of bytes between
// whitespace rather than byte by byte: the body of every message is
// canonicalized, and a copy of it made a byte at a time was a twentieth of
// a campaign's signing.
func relaxedBodyHash(body []byte) [sha256.Size]byte {
	h := sha256.New()
	buf := make([]byte, 0, 8<<10)
	blank := 0 // empty lines held back: those at the end are dropped
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\r\n"))
		body = rest
		start := len(buf)
		buf = appendRelaxedLine(buf, line)
		if len(buf) == start {
			blank++
			continue
		}
		canonical := buf[start:]
		if blank > 0 {
			// Put the held-back empty lines before this line's bytes.
			buf = buf[:start]
			if len(buf)+2*blank+len(canonical) > cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
			for ; blank > 0; blank-- {
				buf = append(buf, '\r', '\n')
			}
			buf = appendRelaxedLine(buf, line)
		}
		buf = append(buf, '\r', '\n')
		if len(buf) >= cap(buf)/2 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// appendRelaxedLine appends line (without its CRLF) with each whitespace
// run made one space and the whitespace at its end removed. The result is
// never longer than line, so it is written in place of a grown slice.
func appendRelaxedLine(out, line []byte) []byte {
	n := len(out)
	out = slices.Grow(out, len(line))[:n+len(line)]
	dst := out[n:]
	k, space := 0, false
	for _, c := range line {
		if c == ' ' || c == '\t' {
			space = true
			continue
		}
		if space {
			dst[k] = ' '
			k++
			space = false
		}
		dst[k] = c
		k++
	}
	return out[:n+k]
}
