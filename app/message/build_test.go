package message

import (
	"bytes"
	"crypto/rand"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func TestBuildAlternative(t *testing.T) {
	m := baseMessage()
	m.HTML = "<html><head><style>p{color:red}</style></head><body>" +
		"<p>Grüße, Ann &amp; co.</p><p>Line with = sign and trailing space </p>" +
		"<p>" + strings.Repeat("long line ", 30) + "</p></body></html>"
	raw := mustBuild(t, m)
	h, leaves := parse(t, raw)

	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/alternative;") {
		t.Fatalf("Content-Type = %q", ct)
	}
	if len(leaves) != 2 {
		t.Fatalf("got %d parts, want 2", len(leaves))
	}
	text, html := leaves[0], leaves[1]
	for _, p := range leaves {
		if p.path != "alternative" || p.get("Content-Transfer-Encoding") != "quoted-printable" {
			t.Errorf("part %q at %q with %q", p.get("Content-Type"), p.path, p.get("Content-Transfer-Encoding"))
		}
	}
	if text.get("Content-Type") != "text/plain; charset=utf-8" || html.get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("part types %q, %q", text.get("Content-Type"), html.get("Content-Type"))
	}
	if got := string(html.body); got != m.HTML {
		t.Errorf("html = %q, want %q", got, m.HTML)
	}
	if got, want := lf(text.body), HTMLToText(m.HTML); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if !strings.HasPrefix(lf(text.body), "Grüße, Ann & co.\n\nLine with = sign") {
		t.Errorf("derived text = %q", text.body)
	}
}

func TestBuildKeepsGivenText(t *testing.T) {
	m := baseMessage()
	m.Text = "Own text\nsecond line\r\nthird\rfourth\n"
	_, leaves := parse(t, mustBuild(t, m))
	if got, want := lf(leaves[0].body), "Own text\nsecond line\nthird\nfourth\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

func TestBuildHeaders(t *testing.T) {
	m := baseMessage()
	m.From = Address{Name: "Zoë \"the\" Sender, Ltd.", Email: "zoe@example.com"}
	m.To = []Address{{Name: "Łukasz Żółć", Email: "lukasz@example.pl"}, {Email: "plain@example.net"},
		{Name: "日本語の名前", Email: "jp@example.jp"}}
	m.ReplyTo = &Address{Name: "Support Desk", Email: "support@example.com"}
	m.Subject = "Ваш заказ №42 отправлен — " + strings.Repeat("очень длинная тема ", 8)
	m.MessageID = "<abc.123@example.com>"
	m.Headers = map[string]string{
		"X-Campaign":       "spring-2025",
		"X-Unicode":        "café crème",
		"X-Looks-Encoded":  "=?utf-8?q?not_really?=",
		"X-Long-Word":      strings.Repeat("x", 998),
		"X-Long-Sentence":  strings.Repeat("word ", 150) + "end",
		"Content-Language": "de",
		"In-Reply-To":      "<prev@example.com>",
	}
	raw := mustBuild(t, m)
	h, _ := parse(t, raw)

	from, err := mail.ParseAddress(h.Get("From"))
	if err != nil || from.Name != m.From.Name || from.Address != m.From.Email {
		t.Errorf("From = %+v, %v", from, err)
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 3 {
		t.Fatalf("To = %v, %v", to, err)
	}
	for i, a := range to {
		if a.Name != m.To[i].Name || a.Address != m.To[i].Email {
			t.Errorf("To[%d] = %+v, want %+v", i, a, m.To[i])
		}
	}
	if rt, err := mail.ParseAddress(h.Get("Reply-To")); err != nil || rt.Address != "support@example.com" || rt.Name != "Support Desk" {
		t.Errorf("Reply-To = %+v, %v", rt, err)
	}
	if got := decodeHeader(t, h.Get("Subject")); got != m.Subject {
		t.Errorf("Subject = %q, want %q", got, m.Subject)
	}
	if d, err := h.Date(); err != nil || !d.Equal(m.Date) {
		t.Errorf("Date = %v, %v", d, err)
	}
	if h.Get("Message-ID") != m.MessageID || h.Get("MIME-Version") != "1.0" {
		t.Errorf("Message-ID %q, MIME-Version %q", h.Get("Message-ID"), h.Get("MIME-Version"))
	}
	for k, v := range m.Headers {
		if got := decodeHeader(t, h.Get(k)); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for i, c := range raw {
		if c >= 0x80 {
			t.Fatalf("8-bit byte at %d: %q", i, context(raw, i))
		}
	}
	for _, line := range headerLines(raw) {
		// Only a lone first word may pass 78 columns.
		_, value, _ := strings.Cut(line, ": ")
		if len(line) > foldAt && (line[0] == ' ' || strings.Contains(value, " ")) {
			t.Errorf("header line not folded (%d): %q", len(line), line)
		}
	}
}

func TestBuildHeaderOrder(t *testing.T) {
	m := baseMessage()
	m.Headers = map[string]string{"X-B": "2", "X-A": "1"}
	var names []string
	for _, line := range headerLines(mustBuild(t, m)) {
		if name, _, ok := strings.Cut(line, ":"); ok && line[0] != ' ' {
			names = append(names, name)
		}
	}
	want := "Date From To Subject Message-ID X-A X-B MIME-Version Content-Type"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("header order %q, want %q", got, want)
	}
}

func TestBuildMessageID(t *testing.T) {
	m := baseMessage()
	m.From.Email = "news@Bücher.Example"
	h, _ := parse(t, mustBuild(t, m))
	if from := h.Get("From"); from != `"Herald" <news@xn--bcher-kva.example>` {
		t.Errorf("From = %q, want the domain as A-labels", from)
	}
	id := h.Get("Message-ID")
	if !strings.HasSuffix(id, "@xn--bcher-kva.example>") || !validMessageID(id) {
		t.Errorf("Message-ID = %q", id)
	}
	a, b := NewMessageID("example.com"), NewMessageID("example.com")
	if a == b || !validMessageID(a) || !strings.HasSuffix(a, "@example.com>") {
		t.Errorf("NewMessageID gave %q and %q", a, b)
	}
	if got := NewMessageID("bad domain"); !strings.HasSuffix(got, "@localhost>") {
		t.Errorf("NewMessageID(bad) = %q", got)
	}
}

func TestBuildZeroDateUsesNow(t *testing.T) {
	m := baseMessage()
	m.Date = time.Time{}
	h, _ := parse(t, mustBuild(t, m))
	if d, err := h.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date = %v, %v", d, err)
	}
}

func TestListUnsubscribe(t *testing.T) {
	cases := []struct {
		url, mailto, want, post string
	}{
		{"https://h.example/u/tok", "", "<https://h.example/u/tok>", "List-Unsubscribe=One-Click"},
		{"https://h.example/u/tok", "unsub@h.example?subject=x", "<https://h.example/u/tok>, <mailto:unsub@h.example?subject=x>", "List-Unsubscribe=One-Click"},
		{"", "mailto:unsub@h.example", "<mailto:unsub@h.example>", ""},
		{"", "", "", ""},
	}
	for _, c := range cases {
		m := baseMessage()
		m.ListUnsubscribe, m.ListUnsubscribeMailto = c.url, c.mailto
		h, _ := parse(t, mustBuild(t, m))
		if got := h.Get("List-Unsubscribe"); got != c.want {
			t.Errorf("List-Unsubscribe = %q, want %q", got, c.want)
		}
		if got := h.Get("List-Unsubscribe-Post"); got != c.post {
			t.Errorf("List-Unsubscribe-Post = %q, want %q", got, c.post)
		}
	}
}

func TestBuildEmptyBodies(t *testing.T) {
	m := baseMessage()
	m.HTML = ""
	_, leaves := parse(t, mustBuild(t, m))
	if len(leaves) != 2 || len(leaves[0].body) != 0 || len(leaves[1].body) != 0 {
		t.Errorf("parts %+v", leaves)
	}
}

func TestBuildTooLarge(t *testing.T) {
	m := baseMessage()
	m.HTML = strings.Repeat("a", MaxMessageBytes)
	m.Text = "short"
	if _, err := Build(m); err != ErrTooLarge {
		t.Errorf("40 MB HTML: err = %v, want ErrTooLarge", err)
	}
	// Attachments within 40 MB decoded still pass it once base64 encoded.
	m = baseMessage()
	m.Attachments = []Attachment{{Filename: "big.bin", ContentType: "application/octet-stream",
		Content: make([]byte, 31<<20)}}
	if _, err := Build(m); err != ErrTooLarge {
		t.Errorf("31 MB attachment: err = %v, want ErrTooLarge", err)
	}
}

func TestBoundaryAbsentFromContent(t *testing.T) {
	m := baseMessage()
	m.HTML = "--=_ =_ --=_AAAA_a-- " + strings.Repeat("=_", 50)
	m.Attachments = []Attachment{{Filename: "r.bin", ContentType: "application/octet-stream", Content: randomBytes(t, 4096)}}
	raw := mustBuild(t, m)
	h, leaves := parse(t, raw)
	_, params, _ := strings.Cut(h.Get("Content-Type"), `boundary="`)
	base := strings.TrimSuffix(strings.TrimSuffix(params, `"`), "_m")
	// Every occurrence of the boundary must be Herald's own: a delimiter
	// line or a boundary parameter.
	own := bytes.Count(raw, []byte("\r\n--"+base)) + bytes.Count(raw, []byte(`boundary="`+base))
	if n := bytes.Count(raw, []byte(base)); n != own || n == 0 {
		t.Errorf("boundary %q occurs %d times, %d of them as delimiters or parameters", base, n, own)
	}
	if string(leaves[1].body) != "<html><body>"+m.HTML+"</body></html>" { // a fragment is wrapped
		t.Errorf("html = %q", leaves[1].body)
	}
}

func randomBytes(t testing.TB, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
