package web_test

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// With a long HERALD_BASE_URL (up to the 512 characters the config allows)
// marketing mail still goes out, DKIM-verifies, and its only header line
// over 78 characters is the List-Unsubscribe URL, one token that cannot be
// folded; every line stays under 998.
func TestLongBaseURLHeaders(t *testing.T) {
	for _, n := range []int{40, 512} {
		base := "https://mail.example.com/"
		base += strings.Repeat("p", n-len(base))
		e := webtest.New(t, webtest.Options{BaseURL: base})
		verifiedDomain(t, e, "herald.test")
		e.RouteMail("example.net")
		r := e.Secret("POST", "/templates", map[string]any{"name": "News", "subject": "News", "type": "MARKETING",
			"from": "news@herald.test", "body": `<p>Our news. <a href="{{unsubscribeUrl}}">Unsubscribe</a></p>`})
		expectStatus(t, r, 201)
		sendOK(t, e, map[string]any{"to": "ada@example.net", "template": r.JSON()["id"].(string),
			"attachments": []any{map[string]any{"filename": strings.Repeat("monthly statement ", 8) + ".pdf",
				"content": "JVBERg==", "contentType": "application/pdf"}}})
		got := e.Sink.Wait(1, 10*time.Second)
		if len(got) != 1 {
			t.Fatalf("base of %d: nothing delivered", n)
		}
		raw := got[0].Data
		verifyDKIM(t, e, raw)
		head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
		for _, line := range strings.Split(string(head), "\r\n") {
			if len(line) > 78 && !strings.HasPrefix(line, "List-Unsubscribe: <"+base+"/unsubscribe/") {
				t.Errorf("base of %d: header line of %d: %q", n, len(line), line)
			}
			if len(line) > 998 {
				t.Errorf("base of %d: header line of %d", n, len(line))
			}
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if lu := msg.Header.Get("List-Unsubscribe"); !strings.HasPrefix(lu, "<"+base+"/unsubscribe/") {
			t.Errorf("base of %d: List-Unsubscribe %q", n, lu)
		}
		// The attachment's part header folds too (RFC 2231 continuations).
		for _, line := range strings.Split(string(raw), "\r\n") {
			if strings.Contains(line, "monthly") && len(line) > 78 {
				t.Errorf("base of %d: attachment header line of %d: %q", n, len(line), line)
			}
		}
	}
}
