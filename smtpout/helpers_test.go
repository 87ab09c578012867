package smtpout

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
)

// env is a loopback DNS server and a resolver pointed at it.
type env struct {
	t   *testing.T
	dns *dnstest.Server
	res *resolver.Client
}

func newEnv(t *testing.T) *env {
	d := dnstest.Start(t)
	return &env{t: t, dns: d, res: resolver.New(d.Addr, 2*time.Second)}
}

// mx publishes domain's MX hosts in order of preference, each at ip.
func (e *env) mx(domain string, hostsAndIPs ...string) {
	for i := 0; i+1 < len(hostsAndIPs); i += 2 {
		host, ip := hostsAndIPs[i], hostsAndIPs[i+1]
		e.dns.Add(e.t, domain+". 300 IN MX "+itoa((i/2+1)*10)+" "+host+".")
		if ip != "" {
			e.dns.Add(e.t, host+". 300 IN A "+ip)
		}
	}
}

// sender returns a Sender delivering to port, closed when the test ends.
func (e *env) sender(port int, mod func(*Config)) *Sender {
	cfg := Config{
		Hostname: "herald.test",
		Port:     port,
		Timeouts: Timeouts{Connect: 2 * time.Second, Greeting: 2 * time.Second, Command: 2 * time.Second, Data: 5 * time.Second},
	}
	if mod != nil {
		mod(&cfg)
	}
	s := New(cfg, e.res, &net.Dialer{}, testLogger(e.t))
	e.t.Cleanup(func() { s.Close() })
	return s
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func itoa(n int) string { return strconv.Itoa(n) }

// signedMessage is a stand-in for a signed message, with lines that need
// dot-stuffing, to check that the bytes arrive unchanged.
func signedMessage(to ...string) Message {
	data := "DKIM-Signature: v=1; a=rsa-sha256; d=herald.test; s=k1; b=abc\r\n" +
		"From: news@herald.test\r\nTo: " + strings.Join(to, ", ") + "\r\nSubject: hello\r\n\r\n" +
		".a line starting with a dot\r\n.\r\n" + strings.Repeat("0123456789", 90) + "\r\nend\r\n"
	return Message{From: "bounce+t1@herald.test", To: to, Domain: "example.test", Data: []byte(data)}
}

func send(t *testing.T, s *Sender, m Message) []Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := s.Send(ctx, m)
	if len(res) != len(m.To) {
		t.Fatalf("got %d results for %d recipients", len(res), len(m.To))
	}
	for i, r := range res {
		if r.Recipient != m.To[i] {
			t.Fatalf("result %d is for %q, want %q", i, r.Recipient, m.To[i])
		}
		t.Logf("%+v", r)
	}
	return res
}

func wantDelivered(t *testing.T, r Result, host string) {
	t.Helper()
	if !r.Delivered || r.Temporary || r.Code != 250 || r.MXHost != host {
		t.Fatalf("want delivered by %s, got %+v", host, r)
	}
}

func wantFailed(t *testing.T, r Result, temporary bool, code int, enh string) {
	t.Helper()
	if r.Delivered || r.Temporary != temporary || r.Code != code || r.EnhancedCode != enh {
		t.Fatalf("want failure temporary=%v %d %s, got %+v", temporary, code, enh, r)
	}
}

// listenRaw serves every connection on ip:port with serve and returns ip.
func listenRaw(t *testing.T, ip string, port int, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, itoa(port)))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ip
}

type countingResolver struct {
	Resolver
	mx atomic.Int32
}

func (c *countingResolver) MX(ctx context.Context, domain string) ([]resolver.MX, error) {
	c.mx.Add(1)
	return c.Resolver.MX(ctx, domain)
}
