package message

import (
	"bytes"
	"mime"
	"net/mail"
	"strings"
	"testing"
)

// longHeaderLines returns the lines of raw's top-level header and of every
// part's header that pass 78 characters.
func longHeaderLines(raw []byte) []string {
	var out []string
	inHeader := true
	for _, line := range strings.Split(string(raw), "\r\n") {
		switch {
		case line == "":
			inHeader = false
		case strings.HasPrefix(line, "--=_"):
			inHeader = true
		case inHeader && len(line) > foldAt:
			out = append(out, line)
		}
	}
	return out
}

// A header line passes 78 characters only when it holds one token that
// cannot be folded (a URL, an address) and nothing it could have moved:
// List-Unsubscribe folds after its comma and moves a URL that fits a line
// of its own off the name's line; long ASCII filenames are sent in RFC 2231
// continuations (name= as encoded-words); every value reads back the same.
func TestLongHeaderValuesFold(t *testing.T) {
	url := func(n int) string {
		return "https://mail.example.com/" + strings.Repeat("u", n-len("https://mail.example.com/"))
	}
	filename := strings.Repeat("quarterly report ", 10) + `(final\v2).pdf`
	cases := []struct {
		name, url, mailto string
		long              string // the one line allowed over 78, "" for none
	}{
		{"url of 70 on its own line", url(70), "", ""},
		{"url of 75 on its own line", url(75), "", ""},
		{"url of 90 stays whole", url(90), "", "List-Unsubscribe: <" + url(90) + ">,"},
		{"url and mailto fold after the comma", url(60), "unsubscribe@" + strings.Repeat("m", 40) + ".example.com", ""},
	}
	for _, c := range cases {
		m := baseMessage()
		m.ListUnsubscribe, m.ListUnsubscribeMailto = c.url, c.mailto
		if c.long != "" {
			m.ListUnsubscribeMailto = "u@example.com"
		}
		m.Attachments = []Attachment{{Filename: filename, ContentType: "application/pdf; x-note=\"" + strings.Repeat("n", 90) + "\"", Content: []byte("%PDF")}}
		raw := mustBuild(t, m)
		for _, line := range longHeaderLines(raw) {
			if line != c.long {
				t.Errorf("%s: header line of %d: %q", c.name, len(line), line)
			}
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		want := "<" + c.url + ">"
		if mt := m.ListUnsubscribeMailto; mt != "" {
			want += ", <mailto:" + mt + ">"
		}
		if got := msg.Header.Get("List-Unsubscribe"); got != want {
			t.Errorf("%s: List-Unsubscribe reads %q, want %q", c.name, got, want)
		}
		_, leaves := parse(t, raw)
		att := leaves[len(leaves)-1]
		ct, params, err := mime.ParseMediaType(att.get("Content-Type"))
		if err != nil || ct != "application/pdf" || params["x-note"] != strings.Repeat("n", 90) || decodeHeader(t, params["name"]) != filename {
			t.Errorf("%s: Content-Type %q → %q %v %v", c.name, att.get("Content-Type"), ct, params, err)
		}
		_, params, err = mime.ParseMediaType(att.get("Content-Disposition"))
		if err != nil || params["filename"] != filename {
			t.Errorf("%s: Content-Disposition %q → %v %v", c.name, att.get("Content-Disposition"), params, err)
		}
	}
}

// A content type longer than 255 characters, or with a type or subtype
// over RFC 6838's 127, is refused: one of its tokens could pass 998.
func TestLongContentTypeRefused(t *testing.T) {
	for _, ct := range []string{"application/" + strings.Repeat("p", 128), "application/pdf; " + strings.Repeat("k", 250) + "=v"} {
		m := baseMessage()
		m.Attachments = []Attachment{{Filename: "a.pdf", ContentType: ct, Content: []byte("%PDF")}}
		if _, err := Build(m); err == nil {
			t.Errorf("content type of %d accepted", len(ct))
		}
	}
}
