package storage

import "strings"

// rebind rewrites a statement's SQLite placeholders as PostgreSQL's: ?N
// becomes $N, and a bare ? the number after the largest used so far (as
// SQLite numbers it). String literals, quoted identifiers and comments are
// copied as they are. A statement without placeholders comes back
// unchanged, and so does a PostgreSQL text already written with $N.
//
// Storage calls it once per statement text, when it prepares or first
// meets the text, never per execution.
func rebind(query string) string {
	if !strings.ContainsRune(query, '?') {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	largest := 0
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end := closingQuote(query, i)
			b.WriteString(query[i:end])
			i = end
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			end := strings.Index(query[i+2:], "*/")
			if end < 0 {
				end = len(query)
			} else {
				end += i + 4
			}
			b.WriteString(query[i:end])
			i = end
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := largest + 1
			if j > i+1 {
				n = atoiSmall(query[i+1 : j])
			}
			largest = max(largest, n)
			b.WriteByte('$')
			writeInt(&b, n)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closingQuote returns the index just past the quoted text starting at
// i; a doubled quote inside it is an escaped quote. An unclosed quote
// runs to the end.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// atoiSmall reads a placeholder's number; SQLite allows at most 32766, so
// anything longer is clamped rather than overflowing.
func atoiSmall(digits string) int {
	n := 0
	for _, d := range []byte(digits) {
		n = n*10 + int(d-'0')
		if n > 1<<20 {
			return 1 << 20
		}
	}
	return n
}

func writeInt(b *strings.Builder, n int) {
	var buf [8]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	b.Write(buf[i:])
}
