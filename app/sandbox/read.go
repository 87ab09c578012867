package sandbox

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
	"unicode/utf8"
)

// Reading a captured message for the viewer: its header fields as
// written, and its first text/html and text/plain parts that are not
// attachments, decoded. The bytes may be anything a client submitted
// (SMTP submission), so reading never fails: what cannot be read is left
// out. FuzzReadMessage holds it to that.

// Bounds of the walk through nested multiparts.
const (
	maxDepth = 8
	maxParts = 200
)

// readMessage is what the viewer shows of raw.
type readMessage struct {
	Headers map[string]string // name as first written -> values, unfolded, joined by "\n"
	HTML    string
	Text    string
}

func read(raw []byte) readMessage {
	head, body := splitHeader(raw)
	fields := headerFields(head)
	m := readMessage{Headers: map[string]string{}}
	names := map[string]string{} // lower-case name -> first spelling
	mh := textproto.MIMEHeader{}
	for _, f := range fields {
		key := strings.ToLower(f.name)
		name, seen := names[key]
		if !seen {
			names[key], name = f.name, f.name
			m.Headers[name] = f.value
		} else {
			m.Headers[name] += "\n" + f.value
		}
		mh.Add(f.name, f.value)
	}
	parts := 0
	m.walk(mh, body, 0, &parts)
	return m
}

// field is one header field, unfolded.
type field struct{ name, value string }

// splitHeader cuts a message at its first empty line (CRLF or LF).
func splitHeader(raw []byte) (head, body []byte) {
	for i := 0; i < len(raw); {
		end := bytes.IndexByte(raw[i:], '\n')
		if end < 0 {
			return raw, nil
		}
		line := raw[i : i+end]
		if len(bytes.TrimRight(line, "\r")) == 0 {
			return raw[:i], raw[i+end+1:]
		}
		i += end + 1
	}
	return raw, nil
}

// headerFields unfolds a header block into fields; a line that is neither
// a field nor a continuation is skipped.
func headerFields(head []byte) []field {
	var out []field
	for _, line := range strings.Split(string(head), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(out) > 0 {
			out[len(out)-1].value += " " + valid(strings.TrimSpace(line))
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		out = append(out, field{valid(name), valid(strings.TrimSpace(value))})
	}
	return out
}

// walk reads one entity: a multipart's parts in turn, or a text part.
func (m *readMessage) walk(h textproto.MIMEHeader, body []byte, depth int, parts *int) {
	*parts++
	if depth > maxDepth || *parts > maxParts || (m.HTML != "" && m.Text != "") {
		return
	}
	ctype, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		ctype, params = "text/plain", map[string]string{}
	}
	if disp, _, _ := mime.ParseMediaType(h.Get("Content-Disposition")); disp == "attachment" {
		return
	}
	switch {
	case strings.HasPrefix(ctype, "multipart/") && params["boundary"] != "":
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err != nil {
				return
			}
			b, err := io.ReadAll(p)
			if err != nil {
				return
			}
			m.walk(p.Header, b, depth+1, parts)
		}
	case ctype == "text/html" && m.HTML == "":
		m.HTML = decodeText(body, h.Get("Content-Transfer-Encoding"), params["charset"])
	case ctype == "text/plain" && m.Text == "":
		m.Text = decodeText(body, h.Get("Content-Transfer-Encoding"), params["charset"])
	}
}

// decodeText undoes a part's transfer encoding and turns its charset into
// UTF-8 where it is one Go knows without tables (UTF-8, US-ASCII,
// ISO-8859-1); other bytes are shown as they are, invalid UTF-8 replaced.
func decodeText(body []byte, encoding, charset string) string {
	var b []byte
	var err error
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		b, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	case "base64":
		b, err = io.ReadAll(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(body)))
	default:
		b = body
	}
	if err != nil && len(b) == 0 {
		b = body
	}
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "latin-1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r)
	}
	return valid(string(b))
}

// valid replaces what is not UTF-8, so that the API's JSON says what it
// was given.
func valid(s string) string { return strings.ToValidUTF8(s, string(utf8.RuneError)) }

// decodeWords decodes a header value's encoded-words (RFC 2047), leaving
// the value as written where they do not decode.
func decodeWords(v string) string {
	d := mime.WordDecoder{}
	if s, err := d.DecodeHeader(v); err == nil {
		return valid(s)
	}
	return valid(v)
}
