package smtpin_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/smtpin"
)

// pythonClient is what a Django or Flask application does with smtplib:
// STARTTLS on 587 with the default mechanism (PLAIN), implicit TLS on 465
// with LOGIN, and a wrong key.
const pythonClient = `
import smtplib, ssl, sys
host, starttls_port, tls_port, key = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ctx = ssl._create_unverified_context()  # the listener's self-signed certificate
msg = "From: App <app@shop.example>\r\nTo: a@example.net\r\nBcc: hidden@example.org\r\nSubject: from smtplib\r\n\r\nHello from Python.\r\n"
with smtplib.SMTP(host, starttls_port, timeout=60) as s:
    s.starttls(context=ctx)
    s.login("herald", key)
    s.mail("app@shop.example")
    s.rcpt("a@example.net")
    s.rcpt("hidden@example.org")
    code, resp = s.data(msg)
    print("starttls", code, resp.decode())
with smtplib.SMTP_SSL(host, tls_port, context=ctx, timeout=60) as s:
    s.ehlo()
    s.user, s.password = "herald", key
    s.auth("LOGIN", s.auth_login)
    refused = s.sendmail("app@shop.example", ["b@example.net"], msg)
    print("implicit", len(refused))
with smtplib.SMTP(host, starttls_port, timeout=60) as s:
    s.starttls(context=ctx)
    try:
        s.login("herald", "sk_wrong")
        print("wrong key accepted")
    except smtplib.SMTPAuthenticationError as e:
        print("wrong", e.smtp_code, e.smtp_error.decode())
`

func TestSubmissionPythonSmtplib(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: smtplib is not tried")
	}
	l := startSubmission(t, smtpin.SubmissionConfig{})
	script := filepath.Join(t.TempDir(), "client.py")
	if err := os.WriteFile(script, []byte(pythonClient), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, python, script, "127.0.0.1", port(t, l.plain), port(t, l.tl), goodKey)
	for _, want := range []string{"starttls 250 2.0.0 queued as em_1,em_2", "implicit 0", "wrong 535 5.7.8 "} {
		if !strings.Contains(out, want) {
			t.Errorf("smtplib: no %q in:\n%s", want, out)
		}
	}
	got := l.sub.submissions()
	if len(got) != 2 || strings.Contains(strings.ToLower(string(got[0].prepared[1])), "bcc:") {
		t.Fatalf("submissions %+v", got)
	}
}

func TestSubmissionSwaks(t *testing.T) {
	swaks, err := exec.LookPath("swaks")
	if err != nil {
		if os.Getenv("HERALD_REQUIRE_SWAKS") == "1" {
			t.Fatal("swaks is not installed and HERALD_REQUIRE_SWAKS=1")
		}
		t.Skip("swaks is not installed: apt-get install swaks (HERALD_REQUIRE_SWAKS=1 makes this a failure)")
	}
	l := startSubmission(t, smtpin.SubmissionConfig{})
	common := []string{"--from", "app@shop.example", "--to", "a@example.net",
		"--header", "Subject: from swaks", "--body", "Hello from swaks.", "--timeout", "60"}
	queued := regexp.MustCompile(`<~ +250 2\.0\.0 queued as em_\d+`)
	for _, mode := range [][]string{
		{"--server", l.plain, "--tls", "--auth", "PLAIN"},
		{"--server", l.plain, "--tls", "--auth", "LOGIN"},
		{"--server", l.tl, "--tls-on-connect", "--auth", "LOGIN"},
	} {
		out := run(t, swaks, append(append(mode, common...), "--auth-user", "herald", "--auth-password", goodKey)...)
		if !queued.MatchString(out) {
			t.Errorf("swaks %v: no 250 with the email id in:\n%s", mode, out)
		}
	}
	out, _ := exec.Command(swaks, append([]string{"--server", l.plain, "--tls", "--auth", "PLAIN",
		"--auth-user", "herald", "--auth-password", "sk_wrong"}, common...)...).CombinedOutput()
	if !strings.Contains(string(out), "535 5.7.8") {
		t.Errorf("swaks with a wrong key:\n%s", out)
	}
	// Without TLS and AUTH, MAIL is refused.
	out, _ = exec.Command(swaks, append([]string{"--server", l.plain}, common...)...).CombinedOutput()
	if !strings.Contains(string(out), "530 5.7.0") {
		t.Errorf("swaks without TLS:\n%s", out)
	}
	if n := len(l.sub.submissions()); n != 3 {
		t.Fatalf("%d submissions, want 3", n)
	}
}

// run runs a client to its end and returns what it printed.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
