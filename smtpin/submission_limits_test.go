package smtpin_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
)

// The first 10 wrong keys from an address answer 535; the 11th AUTH gets
// 421 and the connection closes, and so does every new connection from
// that address, on either port, whatever key it would bring.
func TestSubmissionEleventhFailureBlocksTheAddress(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	r := dialRaw(t, l.plain, false)
	r.startTLS()
	for i := 1; i <= 10; i++ {
		if got := r.cmd(plainAuth("sk_wrong")); !strings.HasPrefix(got, "535 5.7.8 ") {
			t.Fatalf("failure %d: %q, want 535 5.7.8", i, got)
		}
	}
	if got := r.cmd(plainAuth(goodKey)); !strings.HasPrefix(got, "421 4.7.0 ") {
		t.Fatalf("11th AUTH: %q, want 421 4.7.0", got)
	}
	if _, _, err := r.read(); err != io.EOF {
		t.Fatalf("after the 421: %v, want the connection closed", err)
	}

	for _, port := range []struct {
		addr        string
		implicitTLS bool
	}{{l.plain, false}, {l.tl, true}} {
		r := dialRaw(t, port.addr, port.implicitTLS)
		code, msg, _ := r.read()
		if code != 421 || !strings.HasPrefix(msg, "4.7.0 ") {
			t.Fatalf("new connection (implicit TLS %v): %d %q, want 421 4.7.0", port.implicitTLS, code, msg)
		}
		if _, _, err := r.read(); err != io.EOF {
			t.Fatalf("after the 421 greeting: %v, want the connection closed", err)
		}
	}
}

// Wrong API keys count in the same counter: an address the API has seen
// send 10 wrong keys is refused here too.
func TestSubmissionSharesTheAPIFailureCounter(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	for range smtpin.SubmissionFailedAuthLimit {
		l.failures.Count("127.0.0.1") // as the API's wrong keys would
	}
	if code, msg, _ := dialRaw(t, l.plain, false).read(); code != 421 || !strings.HasPrefix(msg, "4.7.0 ") {
		t.Fatalf("greeting: %d %s, want 421 4.7.0", code, msg)
	}
}

func TestSubmissionConnectionsPerAddress(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{MaxConnectionsPerIP: 2})
	for range 2 {
		if code, _, err := dialRaw(t, l.plain, false).read(); code != 220 {
			t.Fatalf("greeting: %d %v", code, err)
		}
	}
	if code, msg, _ := dialRaw(t, l.plain, false).read(); code != 421 || !strings.HasPrefix(msg, "4.7.0 ") {
		t.Fatalf("third connection: %d %s, want 421 4.7.0", code, msg)
	}
}

func TestSubmissionFiftyRecipients(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c := l.login(t)
	if err := c.Mail("orders@shop.example", nil); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		if err := c.Rcpt(fmt.Sprintf("r%d@example.net", i), nil); err != nil {
			t.Fatalf("recipient %d: %v", i, err)
		}
	}
	if err := c.Rcpt("r51@example.net", nil); errCode(err) != "452 4.5.3" {
		t.Fatalf("51st recipient: %v, want 452 4.5.3", err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(simple))
	resp, err := w.CloseWithResponse()
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Split(strings.TrimPrefix(resp.StatusText, "2.0.0 queued as "), ",")
	if len(ids) != 50 || ids[49] != "em_50" {
		t.Fatalf("250 %s", resp.StatusText)
	}
	if got := l.sub.submissions(); len(got) != 1 || len(got[0].env.To) != 50 {
		t.Fatal("not one submission of 50 recipients")
	}
}

func TestSubmission41MBMessage(t *testing.T) {
	l := startSubmission(t, smtpin.SubmissionConfig{})
	c := l.login(t)
	if code := errCode(c.Mail("orders@shop.example", &smtp.MailOptions{Size: 41943041})); code != "552 5.3.4" {
		t.Errorf("MAIL SIZE=41943041: %s, want 552 5.3.4", code)
	}
	_ = c.Reset()
	if err := c.Mail("orders@shop.example", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("a@example.net", nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 76) + "\r\n")
	_, _ = w.Write([]byte(simple))
	for written := 0; written < 41<<20; written += len(line) {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); errCode(err) != "552 5.3.4" {
		t.Fatalf("41 MB: %v, want 552 5.3.4", err)
	}
	if len(l.sub.submissions()) != 0 {
		t.Fatal("the 41 MB message was submitted")
	}
	// The session goes on.
	if _, err := submit(c, "orders@shop.example", []string{"a@example.net"}, simple); err != nil {
		t.Fatal(err)
	}
}
