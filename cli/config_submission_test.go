package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The submission settings are checked with the others: a bad address, or
// a certificate without its key, stops every command with exit 2 and one
// line naming the variables.
func TestSubmissionSettingsChecked(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"HERALD_SUBMISSION_LISTEN": "587"}, []string{"HERALD_SUBMISSION_LISTEN", `"587"`, "host:port"}},
		{map[string]string{"HERALD_SUBMISSION_TLS_LISTEN": "[::1]:99999"}, []string{"HERALD_SUBMISSION_TLS_LISTEN", "host:port"}},
		{map[string]string{"HERALD_SUBMISSION_TLS_CERT": "/etc/herald/cert.pem"},
			[]string{"HERALD_SUBMISSION_TLS_CERT and HERALD_SUBMISSION_TLS_KEY go together"}},
		{map[string]string{"HERALD_SUBMISSION_TLS_KEY": "/etc/herald/key.pem"},
			[]string{"HERALD_SUBMISSION_TLS_CERT and HERALD_SUBMISSION_TLS_KEY go together"}},
	} {
		for _, cmd := range [][]string{{"version"}, {"project", "list"}, {"serve"}} {
			c.env["HERALD_DATA_DIR"] = filepath.Join(dir, "data")
			_, err := runCLI(t, c.env, "", cmd...)
			if exitCode(err) != 2 {
				t.Fatalf("%v herald %v: %v, want exit 2", c.env, cmd, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%v: %q should say %q on one line", c.env, err, w)
				}
			}
		}
	}
	// On the command line too.
	_, err := runCLI(t, nil, "", "serve", "--submission-tls-cert", "/etc/herald/cert.pem")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "go together") {
		t.Fatalf("--submission-tls-cert alone: %v", err)
	}
	// Files that cannot be read stop serve, exit 2, one line.
	env := map[string]string{"HERALD_DATA_DIR": filepath.Join(dir, "data"), "HERALD_LISTEN": "127.0.0.1:0",
		"HERALD_SUBMISSION_LISTEN": "127.0.0.1:0", "HERALD_DNS_SERVER": "127.0.0.1:1",
		"HERALD_SUBMISSION_TLS_CERT": filepath.Join(dir, "missing.pem"), "HERALD_SUBMISSION_TLS_KEY": filepath.Join(dir, "missing.key")}
	_, err = runCLI(t, env, "", "serve")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "HERALD_SUBMISSION_TLS_CERT=") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("unreadable certificate: %v (exit %d)", err, exitCode(err))
	}
}

// Without a configured pair, the submission listeners offer the inbound
// listener's self-signed certificate: the one file of the data directory.
func TestSubmissionSharesTheInboundCertificate(t *testing.T) {
	c := &config{DataDir: t.TempDir(), InboundHost: "mx.herald.test"}
	in, err := inboundTLS(c)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := submissionTLS(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in.Certificates[0].Certificate[0], sub.Certificates[0].Certificate[0]) {
		t.Fatal("the submission listeners made a certificate of their own")
	}
}
