package message

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// leaf is one non-multipart part of a parsed message.
type leaf struct {
	path   string // media types of the enclosing multiparts, e.g. "mixed/related/alternative"
	header map[string][]string
	body   []byte // after transfer decoding
}

func (l leaf) get(k string) string {
	if v := l.header[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// mustBuild builds m or fails the test.
func mustBuild(t testing.TB, m Message) []byte {
	t.Helper()
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	checkWire(t, raw)
	return raw
}

// parse reads raw back with net/mail and mime/multipart, the way a receiver
// would, and returns the header and every leaf part in order.
func parse(t testing.TB, raw []byte) (mail.Header, []leaf) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("mail.ReadMessage: %v", err)
	}
	var leaves []leaf
	walk(t, msg.Header, msg.Body, "", &leaves)
	return msg.Header, leaves
}

func walk(t testing.TB, h map[string][]string, body io.Reader, path string, out *[]leaf) {
	t.Helper()
	ct := ""
	if v := h["Content-Type"]; len(v) > 0 {
		ct = v[0]
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("%s: Content-Type %q: %v", path, ct, err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		*out = append(*out, leaf{path: path, header: h, body: decode(t, h, body)})
		return
	}
	if path != "" {
		path += "/"
	}
	path += strings.TrimPrefix(mediaType, "multipart/")
	r := multipart.NewReader(body, params["boundary"])
	for {
		// NextRawPart keeps Content-Transfer-Encoding, so the test decodes
		// (and checks) it itself.
		p, err := r.NextRawPart()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: next part: %v", path, err)
		}
		walk(t, p.Header, p, path, out)
	}
}

func decode(t testing.TB, h map[string][]string, body io.Reader) []byte {
	t.Helper()
	cte := ""
	if v := h["Content-Transfer-Encoding"]; len(v) > 0 {
		cte = v[0]
	}
	switch cte {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	default:
		t.Fatalf("unexpected Content-Transfer-Encoding %q", cte)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("decoding %s: %v", cte, err)
	}
	return b
}

// checkWire asserts the transport rules every built message must keep:
// CRLF line ends only, no line over 998 characters, no NUL.
func checkWire(t testing.TB, raw []byte) {
	t.Helper()
	for i, c := range raw {
		switch {
		case c == '\n' && (i == 0 || raw[i-1] != '\r'):
			t.Fatalf("bare LF at byte %d: %q", i, context(raw, i))
		case c == '\r' && (i+1 >= len(raw) || raw[i+1] != '\n'):
			t.Fatalf("bare CR at byte %d: %q", i, context(raw, i))
		case c == 0:
			t.Fatalf("NUL at byte %d", i)
		}
	}
	if !bytes.HasSuffix(raw, []byte("\r\n")) {
		t.Fatal("message does not end with CRLF")
	}
	for n, line := range bytes.Split(raw, []byte("\r\n")) {
		if len(line) > maxLine {
			t.Fatalf("line %d is %d characters long", n+1, len(line))
		}
	}
}

func context(raw []byte, i int) []byte {
	return raw[max(i-30, 0):min(i+30, len(raw))]
}

// headerLines returns the raw header of raw, unfolded lines kept apart.
func headerLines(raw []byte) []string {
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	return strings.Split(string(head), "\r\n")
}

func decodeHeader(t testing.TB, v string) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		t.Fatalf("decoding %q: %v", v, err)
	}
	return s
}

// lf turns CRLF into LF, for comparing decoded text with LF input.
func lf(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }

func baseMessage() Message {
	return Message{
		From:    Address{Name: "Herald", Email: "news@example.com"},
		To:      []Address{{Name: "Ann", Email: "ann@example.org"}},
		Subject: "Hello",
		HTML:    "<p>Hello <b>Ann</b></p>",
		Date:    time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("", 3600)),
	}
}
