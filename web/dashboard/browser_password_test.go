package dashboard_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/heraldmail/herald/app"
)

// A user who forgot their password asks for a link on the login page,
// follows the link from the mail, chooses a new password and logs in
// with it; the old one no longer works.
func TestBrowser_ForgotAndResetPassword(t *testing.T) {
	h := startHerald(t, func(o *app.Options) { o.Accounts.SystemFrom = "Herald <no-reply@herald.test>" })
	if _, err := h.App.Accounts.CreateUser(context.Background(), "owner@example.com", password); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, h.URL)
	tb.open("/app/login")
	tb.typeInto("Email", "owner@example.com")
	tb.typeInto("Password", password)
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitText("Create your first project")
	tb.typeInto("Project name", "Acme Mail")
	tb.click(button("Create project"))
	tb.waitJS(pickerIs("Acme Mail"), 10*time.Second)
	p := tb.currentProject()
	h.verifiedDomain(t, *p.Secret, "herald.test") // platform mail is signed by it
	h.routeMail(t, "example.com")
	tb.click(button("Log out"))

	tb.click(button("Forgot your password?"))
	tb.typeInto("Email", "owner@example.com")
	tb.click(button("Send the link"))
	tb.waitText("a link to reset its password is on its way")

	token := h.mailedToken(t, "owner@example.com", "/app/reset-password")
	tb.open("/app/reset-password?token=" + token)
	tb.typeInto("New password", "a brand new passphrase")
	tb.click(button("Set password"))
	tb.waitText("Your password is changed.")
	tb.click(button("Log in"))
	tb.typeInto("Email", "owner@example.com")
	tb.typeInto("Password", "a brand new passphrase")
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitJS(pickerIs("Acme Mail"), 10*time.Second)

	email, old := "owner@example.com", password
	if _, err := h.App.Accounts.Login(context.Background(), &email, &old); err == nil {
		t.Error("the old password still logs in")
	}
}

// mailedToken waits for a mail to an address with a link to path and
// returns the link's token.
func (h *herald) mailedToken(t *testing.T, to, path string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(h.URL+path+"?token=") + `([0-9a-f]{64})`)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range h.Sink.Messages() {
			if len(m.To) != 1 || m.To[0] != to {
				continue
			}
			if match := re.FindStringSubmatch(textOf(t, m.Data)); match != nil {
				return match[1]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no mail to %s with a link to %s", to, path)
	return ""
}

// textOf is every text part of a message, decoded.
func textOf(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	collectText(&b, msg.Header.Get("Content-Type"), msg.Body)
	return b.String()
}

func collectText(b *strings.Builder, contentType string, body io.Reader) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return
	}
	if strings.HasPrefix(mt, "text/") {
		data, _ := io.ReadAll(body)
		b.Write(data)
		return
	}
	if !strings.HasPrefix(mt, "multipart/") {
		return
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return
		}
		collectText(b, part.Header.Get("Content-Type"), part)
	}
}
