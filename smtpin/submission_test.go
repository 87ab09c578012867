package smtpin_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
)

const simple = "From: Shop <orders@shop.example>\r\nTo: someone@example.net\r\nSubject: Hello\r\n\r\nHi there.\r\n"

func TestSubmissionBeforeTLS(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c, err := smtp.Dial(l.plain)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Error("STARTTLS not offered")
	}
	if ok, mechs := c.Extension("AUTH"); ok {
		t.Errorf("AUTH %s offered before TLS", mechs)
	}
	if ok, size := c.Extension("SIZE"); !ok || size != "41943040" {
		t.Errorf("SIZE %q", size)
	}
	if code, _ := reply(c.Auth(sasl.NewPlainClient("", "herald", goodKey))); code != "530 5.7.0" {
		t.Errorf("AUTH before TLS: %s, want 530 5.7.0", code)
	}
	if code, _ := reply(c.Mail("orders@shop.example", nil)); code != "530 5.7.0" {
		t.Errorf("MAIL before TLS: %s, want 530 5.7.0", code)
	}
	if len(l.sub.submissions()) != 0 {
		t.Fatal("something was submitted")
	}
}

func TestSubmissionInsideTLSBeforeAuth(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c, err := smtp.DialStartTLS(l.plain, clientTLS)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, mechs := c.Extension("AUTH"); !ok || mechs != "PLAIN LOGIN" {
		t.Errorf("AUTH inside TLS: %v %q, want PLAIN LOGIN", ok, mechs)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		t.Error("STARTTLS offered again inside TLS")
	}
	if code, _ := reply(c.Mail("orders@shop.example", nil)); code != "530 5.7.0" {
		t.Errorf("MAIL before AUTH: %s, want 530 5.7.0", code)
	}
}

func TestSubmissionSTARTTLSPlain(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c := l.login(t)
	text, err := submit(c, "orders@shop.example", []string{"a@example.net", "b@example.org"}, simple)
	if err != nil {
		t.Fatal(err)
	}
	if text != "2.0.0 queued as em_1,em_2" { // the reply: 250 2.0.0 queued as em_1,em_2

		t.Fatalf("250 text %q", text)
	}
	got := l.sub.submissions()
	if len(got) != 1 || got[0].env.From != "orders@shop.example" ||
		strings.Join(got[0].env.To, " ") != "a@example.net b@example.org" || string(got[0].raw) != simple {
		t.Fatalf("submitted %+v", got)
	}
	// A second message on the same session.
	if _, err := submit(c, "orders@shop.example", []string{"c@example.net"}, simple); err != nil {
		t.Fatal(err)
	}
	if len(l.sub.submissions()) != 2 {
		t.Fatal("second message not submitted")
	}
}

func TestSubmissionImplicitTLSLogin(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c, err := smtp.DialTLS(l.tl, clientTLS)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	if ok, mechs := c.Extension("AUTH"); !ok || !strings.Contains(mechs, "LOGIN") {
		t.Fatalf("AUTH %q on the implicit TLS port", mechs)
	}
	if err := c.Auth(sasl.NewLoginClient("herald", goodKey)); err != nil {
		t.Fatal(err)
	}
	if _, err := submit(c, "orders@shop.example", []string{"a@example.net"}, simple); err != nil {
		t.Fatal(err)
	}
	if len(l.sub.submissions()) != 1 {
		t.Fatal("not submitted")
	}
}

// AUTH LOGIN without the user name on the command line, as swaks and
// Outlook send it: "Username:", then "Password:".
func TestSubmissionLoginInThreeSteps(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	r := dialRaw(t, l.tl, true)
	if _, _, err := r.read(); err != nil {
		t.Fatal(err)
	}
	r.cmd("EHLO client.test")
	steps := []struct{ send, want string }{
		{"AUTH LOGIN", "334 VXNlcm5hbWU6"}, // "Username:"
		{"aGVyYWxk", "334 UGFzc3dvcmQ6"},   // "herald", then "Password:"
		{b64(goodKey), "235 2.0.0"},
	}
	for _, s := range steps {
		if got := r.cmd(s.send); !strings.HasPrefix(got, s.want) {
			t.Fatalf("%s: %q, want %s", s.send, got, s.want)
		}
	}
}

func TestSubmissionWrongKeys(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	for _, key := range []string{publicKey, "sk_old0000000000000000000000000000000000000000000000000000000000", "wrong", ""} {
		c, err := smtp.DialStartTLS(l.plain, clientTLS)
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := reply(c.Auth(sasl.NewPlainClient("", "herald", key))); code != "535 5.7.8" {
			t.Errorf("key %q: %s, want 535 5.7.8", key, code)
		}
		c.Close()
	}
	c, err := smtp.DialStartTLS(l.plain, clientTLS)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if code, _ := reply(c.Auth(sasl.NewPlainClient("", "herald", "down"))); code != "454 4.7.0" {
		t.Errorf("key check failing: %s, want 454 4.7.0", code)
	}
	if n := l.failures.count("127.0.0.1"); n != 4 {
		t.Errorf("%d failures counted, want 4 (not the one that could not be checked)", n)
	}
}

func TestSubmissionSenderDomains(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c := l.login(t)
	code, text := reply(c.Mail("someone@other.example", nil))
	if code != "550 5.7.1" || !strings.Contains(text, "other.example") {
		t.Errorf("foreign MAIL FROM: %s %q, want 550 5.7.1 naming the domain", code, text)
	}
	if code, _ := reply(c.Mail("", nil)); code != "550 5.7.1" {
		t.Errorf("null sender: %s", code)
	}
	_ = c.Reset()
	foreignFrom := strings.Replace(simple, "orders@shop.example", "ceo@bank.example", 1)
	_, err := submit(c, "orders@shop.example", []string{"a@example.net"}, foreignFrom)
	if code, text := reply(err); code != "550 5.7.1" || !strings.Contains(text, "bank.example") {
		t.Errorf("foreign From field: %s %q, want 550 5.7.1 naming the domain", code, text)
	}
	twoFroms := "From: orders@shop.example\r\n" + foreignFrom
	_, err = submit(c, "orders@shop.example", []string{"a@example.net"}, twoFroms)
	if code, _ := reply(err); code != "554 5.6.0" {
		t.Errorf("two From fields: %s, want 554 5.6.0", code)
	}
	// A From in a line that a bare CR would hide from one reader and not
	// from another: both read it after the line ends are made CRLF.
	hidden := "X-Note: a\rFrom: ceo@bank.example\r\n" + simple
	_, err = submit(c, "orders@shop.example", []string{"a@example.net"}, hidden)
	if code, _ := reply(err); code != "554 5.6.0" {
		t.Errorf("From hidden behind a bare CR: %s, want 554 5.6.0", code)
	}
	if len(l.sub.submissions()) != 0 {
		t.Fatal("a refused message was submitted")
	}
}

func TestSubmissionSubmitterRefusals(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c := l.login(t)
	for subject, want := range map[string]string{"over cap": "452 4.3.1", "FAIL": "451 4.3.0"} {
		msg := strings.Replace(simple, "Subject: Hello", "Subject: "+subject, 1)
		if _, err := submit(c, "orders@shop.example", []string{"a@example.net"}, msg); !strings.HasPrefix(errCode(err), want) {
			t.Errorf("%s: %v, want %s", subject, err, want)
		}
	}
	long := "From: orders@shop.example\r\n\r\n" + strings.Repeat("x", 1500) + "\r\n"
	if _, err := submit(c, "orders@shop.example", []string{"a@example.net"}, long); errCode(err) != "554 5.6.0" {
		t.Errorf("a line over 998 characters: %v, want 554 5.6.0", err)
	}
}

func errCode(err error) string {
	code, _ := reply(err)
	return code
}

func TestSubmissionSilentClientsAreDisconnected(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{Timeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", l.plain)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	greeting, _ := r.ReadString('\n')
	bye, _ := r.ReadString('\n')
	if !strings.HasPrefix(greeting, "220 ") || !strings.HasPrefix(bye, "421 ") {
		t.Fatalf("greeting %q, then %q", greeting, bye)
	}
}

func TestSubmissionNeedsTLSConfig(t *testing.T) {
	if _, err := smtpin.NewSubmission(smtpin.SubmissionConfig{}, &submitter{}, nil); err == nil {
		t.Fatal("a submission listener without TLS was built")
	}
}
