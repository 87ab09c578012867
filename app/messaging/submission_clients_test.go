package messaging_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pythonClient is what a Django or Flask application does with smtplib:
// a multipart message with an attachment (email.message), STARTTLS on 587
// with the default mechanism (PLAIN), implicit TLS on 465 with LOGIN, a
// Bcc field left in the message, and a wrong key.
const pythonClient = `
import smtplib, ssl, sys
from email.message import EmailMessage
host, starttls_port, tls_port, key, attachment = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ctx = ssl._create_unverified_context()  # the listener's self-signed certificate
msg = EmailMessage()
msg["From"] = "App <app@shop.example>"
msg["To"] = "a@example.net"
msg["Bcc"] = "hidden@example.net"
msg["Subject"] = "from smtplib"
msg.set_content("Hello from Python.")
msg.add_alternative("<p>Hello from <a href='https://shop.example/py'>Python</a>.</p>", subtype="html")
msg.add_attachment(open(attachment, "rb").read(), maintype="application", subtype="octet-stream", filename="data.bin")
raw = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
with smtplib.SMTP(host, starttls_port, timeout=60) as s:
    s.starttls(context=ctx)
    s.login("herald", key)
    code, resp = s.mail("app@shop.example")
    s.rcpt("a@example.net")
    s.rcpt("hidden@example.net")
    code, resp = s.data(raw)
    print("starttls", code, resp.decode())
with smtplib.SMTP_SSL(host, tls_port, context=ctx, timeout=60) as s:
    s.ehlo()
    s.user, s.password = "herald", key
    s.auth("LOGIN", s.auth_login)
    refused = s.sendmail("app@shop.example", ["b@example.net"], raw)
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
	e := startSubmission(t)
	dir := t.TempDir()
	script, attachment := filepath.Join(dir, "client.py"), filepath.Join(dir, "data.bin")
	if err := os.WriteFile(script, []byte(pythonClient), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(attachment, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, python, script, "127.0.0.1", port(t, e.plain), port(t, e.implicit), e.Project.Secret, attachment)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`starttls 250 2\.0\.0 queued as [^,\s]+,[^,\s]+\n`),
		regexp.MustCompile(`implicit 0\n`), regexp.MustCompile(`wrong 535 5\.7\.8 `),
	} {
		if !want.MatchString(out) {
			t.Errorf("smtplib: no %s in:\n%s", want, out)
		}
	}
	got := e.received(t, 3)
	for rcpt, m := range got {
		e.verifyDKIM(t, m.Data)
		if bytes.Contains(bytes.ToLower(m.Data), []byte("\r\nbcc:")) || bytes.Contains(m.Data, []byte("hidden@")) {
			t.Errorf("%s: the Bcc field was written", rcpt)
		}
		checkAttachment(t, m.Data, "application/octet-stream")
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
	e := startSubmission(t)
	attachment := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(attachment, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--from", "orders@shop.example", "--h-From", "Shop <orders@shop.example>",
		"--header", "Subject: from swaks", "--body", "Hello from swaks.",
		"--attach-type", "application/pdf", "--attach", "@" + attachment, "--timeout", "60",
		"--auth-user", "herald", "--auth-password", e.Project.Secret}
	queued := regexp.MustCompile(`<~ +250 2\.0\.0 queued as \S+`)
	for i, mode := range [][]string{
		{"--server", e.plain, "--tls", "--auth", "PLAIN"},
		{"--server", e.plain, "--tls", "--auth", "LOGIN"},
		{"--server", e.implicit, "--tls-on-connect", "--auth", "LOGIN"},
	} {
		to := []string{"--to", "swaks" + string(rune('a'+i)) + "@example.net"}
		out := run(t, swaks, append(append(mode, to...), common...)...)
		if !queued.MatchString(out) {
			t.Errorf("swaks %v: no 250 with the email id in:\n%s", mode, out)
		}
	}
	for _, m := range e.received(t, 3) {
		e.verifyDKIM(t, m.Data)
		checkAttachment(t, m.Data, "application/pdf")
	}
	wrong := append([]string{"--server", e.plain, "--tls", "--auth", "PLAIN", "--to", "x@example.net"}, common...)
	wrong[len(wrong)-1] = "sk_wrong"
	if out, _ := exec.Command(swaks, wrong...).CombinedOutput(); !strings.Contains(string(out), "535 5.7.8") {
		t.Errorf("swaks with a wrong key:\n%s", out)
	}
}

// checkAttachment finds the part of contentType in a received message and
// checks that it decodes to the test's attachment.
func checkAttachment(t *testing.T, raw []byte, contentType string) {
	t.Helper()
	for _, p := range rawParts(t, raw) {
		if p.contentType != contentType {
			continue
		}
		body, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, string(p.body)))
		if err != nil || !bytes.Equal(body, pdf) {
			t.Fatalf("the %s attachment changed: %v", contentType, err)
		}
		return
	}
	t.Fatalf("no %s part", contentType)
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
