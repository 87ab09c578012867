package cli

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHTTPLimitsFromEnvironment(t *testing.T) {
	c := &config{}
	cmd := newServeCmd(c)
	if err := applySettings(cmd, settings{env: os.LookupEnv}); err != nil {
		t.Fatal(err)
	}
	if c.HTTPBodyTimeout != 60*time.Second || c.HTTPHeaderTimeout != 10*time.Second ||
		c.HTTPIdleTimeout != 120*time.Second || c.MaxConnections != 1024 || c.PublicRateLimit != 1200 ||
		c.PublicProjectRateLimit != 60000 || projectEngageLimit(c) != 60000 {
		t.Fatalf("defaults %+v", c.httpLimits)
	}
	t.Setenv("HERALD_HTTP_BODY_TIMEOUT", "7s")
	t.Setenv("HERALD_HTTP_HEADER_TIMEOUT", "3s")
	t.Setenv("HERALD_HTTP_IDLE_TIMEOUT", "9s")
	t.Setenv("HERALD_MAX_CONNECTIONS", "12")
	t.Setenv("HERALD_PUBLIC_RATE_LIMIT", "30")
	t.Setenv("HERALD_PUBLIC_PROJECT_RATE_LIMIT", "500")
	c = &config{}
	cmd = newServeCmd(c)
	if err := applySettings(cmd, settings{env: os.LookupEnv}); err != nil {
		t.Fatal(err)
	}
	want := httpLimits{HTTPBodyTimeout: 7 * time.Second, HTTPHeaderTimeout: 3 * time.Second,
		HTTPIdleTimeout: 9 * time.Second, MaxConnections: 12, PublicRateLimit: 30, PublicProjectRateLimit: 500}
	if c.httpLimits != want {
		t.Fatalf("got %+v, want %+v", c.httpLimits, want)
	}
	// HERALD_RATE_LIMIT=0 turns it off with every other rate limit.
	if c.RateLimit = 0; projectEngageLimit(c) != 0 {
		t.Fatal("per-project engagement limit with HERALD_RATE_LIMIT=0")
	}
	srv := newHTTPServer(c, nil)
	if srv.ReadHeaderTimeout != 3*time.Second || srv.IdleTimeout != 9*time.Second || srv.ReadTimeout != 10*time.Second {
		t.Fatalf("server timeouts %v %v %v", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.ReadTimeout)
	}
}

func TestConfigWarnings(t *testing.T) {
	for _, tc := range []struct {
		base, host string
		want       []string // substrings, one per warning
	}{
		{"https://mail.example.com", "mx.example.com", nil},
		{"http://mail.example.com", "mx.example.com", []string{"not https"}},
		{"http://localhost:8080", "mx.example.com", []string{"not https", "points at this machine"}},
		{"https://127.0.0.1", "mx.example.com", []string{"points at this machine"}},
		{"https://mail.example.com", "myhost", []string{"HERALD_HOSTNAME \"myhost\" is not a fully qualified"}},
		{"https://mail.example.com", "10.0.0.1", []string{"HERALD_HOSTNAME"}},
		{"https://mail.example.com", "mx.localhost", []string{"HERALD_HOSTNAME"}},
	} {
		got := configWarnings(&config{BaseURL: tc.base, Hostname: tc.host})
		if len(got) != len(tc.want) {
			t.Errorf("%s %s: %q, want %d warnings", tc.base, tc.host, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s %s: %q lacks %q", tc.base, tc.host, got[i], w)
			}
		}
	}
}

func TestInboundTLSSelfSignedAtFirstStart(t *testing.T) {
	dir := t.TempDir()
	c := &config{DataDir: dir, InboundHost: "mx.herald.test"}
	cfg, err := inboundTLS(c)
	if err != nil || len(cfg.Certificates) != 1 {
		t.Fatalf("%v %v", cfg, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "inbound-tls.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("certificate file: %v %v", fi, err)
	}
	c.InboundTLSCert = "/nonexistent.pem"
	if _, err := inboundTLS(c); err == nil {
		t.Fatal("a cert without its key was accepted")
	}
}

// A body no handler reads (an unknown path) is drained by net/http after
// the handler; trickled, it held the connection for ever. The server's
// ReadTimeout ends it.
func TestTrickledBodyOnAnUnknownPathIsCut(t *testing.T) {
	c := &config{httpLimits: httpLimits{HTTPHeaderTimeout: 300 * time.Millisecond, HTTPBodyTimeout: 300 * time.Millisecond}}
	srv := newHTTPServer(c, http.NotFoundHandler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn) // returns when the server closes
		close(closed)
	}()
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-closed:
			return
		case <-deadline:
			t.Fatal("a trickled body kept its connection open")
		case <-tick.C:
			_, _ = conn.Write([]byte("x"))
		}
	}
}
