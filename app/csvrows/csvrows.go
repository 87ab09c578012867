// Package csvrows reads CSV files the way people make them, one record at a
// time: lines may end in CR, LF or CRLF, and a malformed record costs only
// itself. encoding/csv stops at the first broken quote and keeps a lone CR
// inside a field, so a file saved by an old Mac spreadsheet read as one
// record and one stray quote lost every row after it.
//
// Records follow RFC 4180: fields are separated by commas, a field may be
// quoted, a quoted field may hold commas, doubled quotes and line breaks.
// Spaces before a field are dropped. A record that breaks these rules (a
// quote inside an unquoted field, text after a closing quote, a quote that
// never closes within MaxRecordLines lines or MaxRecordBytes bytes) is
// returned with an error, and reading goes on at the line after the first
// line of that record. Blank lines are skipped but counted, so Row numbers
// records as a spreadsheet numbers its rows.
package csvrows

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on one record: a quoted field that never closes stops being read
// after this many lines or bytes, so a stray quote costs a bounded amount
// of reading, and so does one very long line.
const (
	MaxRecordLines = 100
	MaxRecordBytes = 1 << 20
)

// Record is one record of the file.
type Record struct {
	Row    int      // 1 for the first line of the file
	Fields []string // nil when Err is set
	Err    error    // why the record is malformed
}

// Reader reads records from a CSV stream.
type Reader struct {
	lines   *lineReader
	pending []string // lines read ahead by a record that turned out malformed
	row     int      // row number of the last record started
}

// NewReader reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{lines: newLineReader(r)}
}

// Offset is how many bytes of the input have been read so far (read-ahead
// included): a measure of progress.
func (r *Reader) Offset() int64 { return r.lines.offset }

// Next returns the next non-blank record, or io.EOF at the end. A read
// error of the underlying stream is returned as is.
func (r *Reader) Next() (Record, error) {
	for {
		line, err := r.nextLine()
		if err != nil {
			return Record{}, err
		}
		if r.row == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		r.row++
		if strings.TrimLeftFunc(line, unicode.IsSpace) == "" {
			continue
		}
		return r.record(line)
	}
}

// nextLine returns a line read ahead earlier, else a new one.
func (r *Reader) nextLine() (string, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		return l, nil
	}
	return r.lines.next()
}

// record parses the record that starts with first, reading more lines
// while a quoted field is open.
func (r *Reader) record(first string) (Record, error) {
	var p parser
	consumed := []string{first}
	size := len(first)
	done, perr := p.line(first)
	for perr == nil && !done {
		if len(consumed) >= MaxRecordLines || size > MaxRecordBytes {
			perr = errUnclosed
			break
		}
		line, err := r.nextLine()
		if errors.Is(err, io.EOF) {
			perr = errUnclosed
			break
		}
		if err != nil {
			return Record{}, err
		}
		consumed = append(consumed, line)
		size += len(line) + 1
		done, perr = p.line(line)
	}
	if perr != nil {
		// Only the first line is the bad record's own; the lines read
		// ahead are read again as records of their own.
		r.pending = append(consumed[1:len(consumed):len(consumed)], r.pending...)
		return Record{Row: r.row, Err: perr}, nil
	}
	return Record{Row: r.row, Fields: p.fields}, nil
}

// Why a record is malformed.
var (
	errBareQuote  = errors.New(`a quote (") inside an unquoted field: quote the field and double the quote`)
	errAfterQuote = errors.New(`text after the closing quote of a field`)
	errUnclosed   = errors.New(`a quoted field is not closed`)
	errTooLong    = errors.New(`the line is longer than 1 MiB`)
)

// parser holds the state of one record across its lines.
type parser struct {
	fields []string
	field  strings.Builder
	quoted bool // inside a quoted field, at the start of the next line
}

// line parses one line of the record; done is true when the record ends
// with it.
func (p *parser) line(s string) (done bool, err error) {
	if len(s) > MaxRecordBytes {
		return false, errTooLong
	}
	i := 0
	if p.quoted {
		p.field.WriteByte('\n') // the line break belongs to the field
	} else {
		i = p.startField(s, 0)
	}
	for {
		if p.quoted {
			if i = p.quotedPart(s, i); p.quoted {
				return false, nil // the field goes on on the next line
			}
			if i = skipSpace(s, i); i < len(s) && s[i] != ',' {
				return false, errAfterQuote
			}
		} else if i, err = p.unquoted(s, i); err != nil {
			return false, err
		}
		p.endField()
		if i == len(s) {
			return true, nil
		}
		i = p.startField(s, i+1)
	}
}

// startField skips the spaces before a field and its opening quote.
func (p *parser) startField(s string, i int) int {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == '"' {
		p.quoted = true
		return i + 1
	}
	return i
}

// unquoted reads an unquoted field up to the next comma or the line's end.
func (p *parser) unquoted(s string, i int) (int, error) {
	end := strings.IndexByte(s[i:], ',')
	if end < 0 {
		end = len(s) - i
	}
	text := s[i : i+end]
	if strings.IndexByte(text, '"') >= 0 {
		return 0, errBareQuote
	}
	p.field.WriteString(text)
	return i + end, nil
}

// quotedPart reads a quoted field up to its closing quote, which clears
// p.quoted, or to the line's end.
func (p *parser) quotedPart(s string, i int) int {
	for i < len(s) {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			p.field.WriteString(s[i:])
			return len(s)
		}
		p.field.WriteString(s[i : i+q])
		i += q + 1
		if i < len(s) && s[i] == '"' {
			p.field.WriteByte('"')
			i++
			continue
		}
		p.quoted = false
		return i
	}
	return i
}

// skipSpace skips white space as encoding/csv's TrimLeadingSpace does.
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += n
	}
	return i
}

func (p *parser) endField() {
	p.fields = append(p.fields, p.field.String())
	p.field.Reset()
}

// lineReader splits a stream into lines at CR, LF or CRLF.
type lineReader struct {
	br     *bufio.Reader
	offset int64
	buf    []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its end. A line longer than
// MaxRecordBytes is read to its end and returned cut, one byte over the
// bound, so that the parser rejects it without holding all of it.
func (l *lineReader) next() (string, error) {
	l.buf = l.buf[:0]
	for {
		c, err := l.br.ReadByte()
		if errors.Is(err, io.EOF) {
			if len(l.buf) == 0 {
				return "", io.EOF
			}
			return string(l.buf), nil
		}
		if err != nil {
			return "", err
		}
		l.offset++
		switch c {
		case '\n':
			return string(l.buf), nil
		case '\r':
			if next, err := l.br.Peek(1); err == nil && next[0] == '\n' {
				_, _ = l.br.ReadByte()
				l.offset++
			}
			return string(l.buf), nil
		}
		if len(l.buf) <= MaxRecordBytes {
			l.buf = append(l.buf, c)
		}
	}
}
