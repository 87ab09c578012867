package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	msgauth "github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout/smtptest"
)

// TestSubmissionListeners runs `herald serve` with both submission
// listeners: an application sends through each (STARTTLS with AUTH PLAIN,
// implicit TLS with AUTH LOGIN), the messages arrive at the recipients'
// server DKIM-signed, without Bcc; then wrong keys over SMTP and over the
// API count in one per-address counter, each side refusing at its own
// limit (SMTP 10, API 20).
func TestSubmissionListeners(t *testing.T) {
	bin := buildHerald(t)
	dns := dnstest.Start(t)
	dns.Add(t, "example.net. 300 IN MX 10 mx.example.net.", "mx.example.net. 300 IN A 127.0.0.1")
	sink := smtptest.Start(t)
	env := []string{"HERALD_DATA_DIR=" + t.TempDir(), "HERALD_DNS_SERVER=" + dns.Addr, "HERALD_HOSTNAME=herald.test",
		"HERALD_SMTP_PORT=" + sink.PortString(),
		"HERALD_SUBMISSION_LISTEN=127.0.0.1:0", "HERALD_SUBMISSION_TLS_LISTEN=127.0.0.1:0"}
	var project struct{ Secret, Public string }
	if err := json.Unmarshal([]byte(run(t, bin, env, "project", "create", "--name", "Apps", "--json")), &project); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, bin, env)
	publishAndVerify(t, s, dns, project.Secret, "herald.test")
	starttls, implicit := listenAddr(t, s, "submission smtp (STARTTLS) listening"), listenAddr(t, s, "submission smtp (implicit TLS) listening")

	msg := "From: App <app@herald.test>\r\nTo: ada@example.net\r\nBcc: boss@example.net\r\nSubject: Hello\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nHello.\r\n" +
		"--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=x.bin\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQ==\r\n--b--\r\n"
	c := dialSubmission(t, starttls, false)
	if err := c.Auth(sasl.NewPlainClient("", "herald", project.Secret)); err != nil {
		t.Fatal(err)
	}
	first := submitOne(t, c, "app@herald.test", []string{"ada@example.net", "boss@example.net"}, msg)
	c.Quit()
	c = dialSubmission(t, implicit, true)
	if err := c.Auth(sasl.NewLoginClient("herald", project.Secret)); err != nil {
		t.Fatal(err)
	}
	second := submitOne(t, c, "app@herald.test", []string{"cy@example.net"}, strings.Replace(msg, "Bcc: boss@example.net\r\n", "", 1))
	c.Quit()
	if len(first) != 2 || len(second) != 1 {
		t.Fatalf("ids %v %v", first, second)
	}
	sink.Wait(3, 30*time.Second)
	res := resolver.New(dns.Addr, time.Second)
	for _, m := range sink.Messages() {
		vs, err := msgauth.VerifyWithOptions(bytes.NewReader(m.Data), &msgauth.VerifyOptions{
			LookupTXT: func(name string) ([]string, error) { return res.TXT(context.Background(), name) }})
		if err != nil || len(vs) != 1 || vs[0].Err != nil {
			t.Errorf("%v: DKIM %v %+v", m.To, err, vs)
		}
		if bytes.Contains(m.Data, []byte("Bcc:")) || !bytes.Contains(m.Data, []byte("AAECAwQFBgcICQ==\r\n--b--\r\n")) {
			t.Errorf("%v: not as written:\n%s", m.To, m.Data)
		}
	}

	// 9 wrong keys over SMTP, the 10th over the API: SMTP is closed to the
	// address, the API not yet.
	// (A connection each: go-smtp's client cancels a refused AUTH with a
	// "*" line, which its server counts as a protocol error, 4 of which
	// close the session.)
	for i := 0; i < 9; i++ {
		c := dialSubmission(t, starttls, false)
		if err := c.Auth(sasl.NewPlainClient("", "herald", fmt.Sprintf("sk_wrong%d", i))); smtpCode(err) != "535 5.7.8" {
			t.Fatalf("wrong key %d: %v", i, err)
		}
		c.Close()
	}
	if r := s.call(t, "GET", "/contacts", "sk_wrong_api", nil); r.status != 401 {
		t.Fatalf("wrong API key: %d %s", r.status, r.raw)
	}
	if _, err := smtp.DialStartTLS(starttls, &tls.Config{InsecureSkipVerify: true}); smtpCode(err) != "421 4.7.0" {
		t.Fatalf("a new connection after 10 wrong keys: %v, want 421 4.7.0", err)
	}
	if r := s.call(t, "GET", "/contacts", project.Secret, nil); r.status != 200 {
		t.Fatalf("the API after 10 wrong keys: %d %s", r.status, r.raw)
	}
	for i := 0; i < 10; i++ {
		s.call(t, "GET", "/contacts", fmt.Sprintf("sk_wrong_api%d", i), nil)
	}
	if r := s.call(t, "GET", "/contacts", project.Secret, nil); r.status != 429 {
		t.Fatalf("the API after 20 wrong keys: %d %s", r.status, r.raw)
	}
	s.stop(t)

	// With HERALD_RATE_LIMIT=0 nothing counts.
	s = startServer(t, bin, append(env, "HERALD_RATE_LIMIT=0"))
	starttls = listenAddr(t, s, "submission smtp (STARTTLS) listening")
	for i := 0; i < 12; i++ {
		c := dialSubmission(t, starttls, false)
		if err := c.Auth(sasl.NewPlainClient("", "herald", "sk_wrong")); smtpCode(err) != "535 5.7.8" {
			t.Fatalf("wrong key %d without rate limits: %v", i, err)
		}
		c.Close()
	}
	c = dialSubmission(t, starttls, false)
	if err := c.Auth(sasl.NewPlainClient("", "herald", project.Secret)); err != nil {
		t.Fatalf("the right key after 12 wrong ones without rate limits: %v", err)
	}
	c.Quit()
	s.stop(t)
}

// listenAddr waits for a listener's log line and returns its address.
func listenAddr(t *testing.T, s *server, msg string) string {
	t.Helper()
	waitForLog(t, s, msg)
	return s.logLines(msg)[0]["addr"].(string)
}

func dialSubmission(t *testing.T, addr string, implicit bool) *smtp.Client {
	t.Helper()
	cfg := &tls.Config{InsecureSkipVerify: true} // the self-signed certificate of the data dir
	var c *smtp.Client
	var err error
	if implicit {
		c, err = smtp.DialTLS(addr, cfg)
	} else {
		c, err = smtp.DialStartTLS(addr, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// submitOne sends one message and returns the email ids of the 250.
func submitOne(t *testing.T, c *smtp.Client, from string, to []string, msg string) []string {
	t.Helper()
	if err := c.Mail(from, nil); err != nil {
		t.Fatal(err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			t.Fatal(err)
		}
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, msg)
	resp, err := w.CloseWithResponse()
	if err != nil {
		t.Fatal(err)
	}
	ids, ok := strings.CutPrefix(resp.StatusText, "2.0.0 queued as ")
	if !ok {
		t.Fatalf("250 %s", resp.StatusText)
	}
	return strings.Split(ids, ",")
}

func smtpCode(err error) string {
	var e *smtp.SMTPError
	if !errors.As(err, &e) {
		return fmt.Sprint(err)
	}
	return fmt.Sprintf("%d %d.%d.%d", e.Code, e.EnhancedCode[0], e.EnhancedCode[1], e.EnhancedCode[2])
}
