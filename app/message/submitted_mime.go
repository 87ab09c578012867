package message

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"strings"
)

// Bounds of the walk through a submitted message's MIME tree. Past them
// the rest is sent as written, untracked: a real message is far smaller.
const (
	maxRewriteDepth = 16
	maxRewriteParts = 1000
)

// htmlRewriter walks a submitted message's MIME tree and rewrites the
// text/html parts, leaving every other byte as it was. What it cannot
// read (a missing boundary, an unknown transfer encoding, undecodable
// quoted-printable) it leaves alone rather than refuse the message.
type htmlRewriter struct {
	rewrite func(string) (string, error)
	parts   int
}

// change is an entity's new body and, when its transfer encoding had to
// change (long lines in a 7bit or 8bit part), the new encoding.
type change struct {
	body []byte
	cte  string
}

// entity rewrites one entity (the message or a part) whose header fields
// are fields (offsets in src) and whose body is body. It returns nil when
// nothing changed.
func (w *htmlRewriter) entity(src []byte, fields []field, body []byte, depth int) (*change, error) {
	w.parts++
	if w.parts > maxRewriteParts || depth > maxRewriteDepth {
		return nil, nil
	}
	mediaType, params := "text/plain", map[string]string{}
	if ct := fieldValue(src, fields, "Content-Type"); ct != "" {
		var err error
		mediaType, params, err = mime.ParseMediaType(ct)
		if err != nil && err != mime.ErrInvalidMediaParameter {
			return nil, nil
		}
	}
	switch {
	case mediaType == "multipart/signed" || mediaType == "multipart/encrypted":
		return nil, nil // a change would break the signature
	case strings.HasPrefix(mediaType, "multipart/"):
		return w.multipart(body, params["boundary"], depth)
	case mediaType == "text/html":
		if isAttachment(fieldValue(src, fields, "Content-Disposition")) || !asciiCompatible(params["charset"]) {
			return nil, nil
		}
		return w.html(body, fieldValue(src, fields, "Content-Transfer-Encoding"))
	}
	return nil, nil // message/rfc822 included: a forwarded message is not ours to track
}

// multipart rewrites the parts of a multipart body, copying the preamble,
// the delimiters and the epilogue as they are.
func (w *htmlRewriter) multipart(body []byte, boundary string, depth int) (*change, error) {
	if boundary == "" || len(boundary) > 200 {
		return nil, nil
	}
	var out []byte
	last := 0
	for _, p := range splitParts(body, boundary) {
		part := body[p.start:p.end]
		fields, bodyStart, blankLine, err := scanFields(part)
		if err != nil || !blankLine {
			continue
		}
		ch, err := w.entity(part, fields, part[bodyStart:], depth+1)
		if err != nil {
			return nil, err
		}
		if ch == nil {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(body)+len(body)/8)
		}
		out = append(out, body[last:p.start]...)
		out = appendEntity(out, part, fields, bodyStart, ch)
		last = p.end
	}
	if out == nil {
		return nil, nil
	}
	return &change{body: append(out, body[last:]...)}, nil
}

// appendEntity appends a part with its new body, and its new transfer
// encoding in place of the old one when it changed.
func appendEntity(out, part []byte, fields []field, bodyStart int, ch *change) []byte {
	if ch.cte == "" {
		out = append(out, part[:bodyStart]...)
		return append(out, ch.body...)
	}
	for _, f := range fields {
		if !strings.EqualFold(f.name, "Content-Transfer-Encoding") {
			out = append(out, part[f.start:f.end]...)
		}
	}
	out = append(out, "Content-Transfer-Encoding: "+ch.cte+"\r\n\r\n"...)
	return append(out, ch.body...)
}

// html decodes an HTML body, rewrites it and encodes it again the way it
// was encoded.
func (w *htmlRewriter) html(body []byte, cte string) (*change, error) {
	cte = strings.ToLower(cte)
	var decoded []byte
	var err error
	switch cte {
	case "quoted-printable":
		decoded, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	case "base64":
		decoded, err = base64.StdEncoding.DecodeString(strings.Map(dropSpace, string(body)))
	case "", "7bit", "8bit", "binary":
		decoded = body
	default:
		return nil, nil
	}
	if err != nil {
		return nil, nil
	}
	html, err := w.rewrite(string(decoded))
	if err != nil {
		return nil, fmt.Errorf("message: rewrite the HTML part: %w", err)
	}
	if html == string(decoded) {
		return nil, nil
	}
	switch cte {
	case "quoted-printable":
		return &change{body: appendQuotedPrintable(nil, html)}, nil
	case "base64":
		var b bytes.Buffer
		b.Grow(base64Len(len(html)) + 2)
		writeBase64(&b, []byte(html))
		if bytes.HasSuffix(body, crlf) {
			b.Write(crlf)
		}
		return &change{body: b.Bytes()}, nil
	}
	// As written, unless the new links make lines too long for SMTP, or
	// put 8-bit bytes in a 7bit part: then quoted-printable.
	out := crlfLines([]byte(html))
	if longLine(out) == 0 && (cte == "8bit" || cte == "binary" || isASCII(out)) {
		return &change{body: out}, nil
	}
	return &change{body: appendQuotedPrintable(nil, html), cte: "quoted-printable"}, nil
}

// span is a byte range.
type span struct{ start, end int }

// splitParts returns the ranges of a multipart body's parts (RFC 2046
// §5.1.1): each runs from after a delimiter line to the CRLF before the
// next one, which belongs to that delimiter. A body that never closes ends
// its last part at its end.
func splitParts(body []byte, boundary string) []span {
	delim := []byte("--" + boundary)
	var parts []span
	start := -1
	for pos := 0; pos <= len(body); {
		i := indexDelimiter(body, pos, delim)
		if i < 0 {
			break
		}
		after := i + len(delim)
		lineEnd := len(body)
		if j := bytes.Index(body[after:], crlf); j >= 0 {
			lineEnd = after + j
		}
		rest := body[after:lineEnd]
		closing := bytes.HasPrefix(rest, []byte("--"))
		if closing {
			rest = rest[2:]
		}
		if len(bytes.Trim(rest, " \t")) > 0 { // a longer boundary that starts with this one
			pos = after
			continue
		}
		if start >= 0 {
			parts = append(parts, span{start, max(start, i-2)})
		}
		if closing {
			return parts
		}
		start = min(lineEnd+2, len(body))
		pos = start
	}
	if start >= 0 {
		parts = append(parts, span{start, len(body)})
	}
	return parts
}

// indexDelimiter finds delim at the start of a line of body, at or after
// pos.
func indexDelimiter(body []byte, pos int, delim []byte) int {
	for pos < len(body) {
		j := bytes.Index(body[pos:], delim)
		if j < 0 {
			return -1
		}
		i := pos + j
		if i == 0 || (i >= 2 && body[i-2] == '\r' && body[i-1] == '\n') {
			return i
		}
		pos = i + 1
	}
	return -1
}

func isAttachment(disposition string) bool {
	d, _, _ := mime.ParseMediaType(disposition)
	return d == "attachment"
}

// asciiCompatible reports whether a charset writes ASCII as ASCII, so
// that links and a pixel can be added to its bytes as they are.
func asciiCompatible(charset string) bool {
	c := strings.ToLower(charset)
	for _, wide := range []string{"utf-16", "utf-32", "ucs-2", "ucs-4", "utf16", "utf32"} {
		if strings.HasPrefix(c, wide) {
			return false
		}
	}
	return true
}

func dropSpace(r rune) rune {
	if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
		return -1
	}
	return r
}
