package smtpout

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/miekg/dns"
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

func TestDeliveredBytesIdentical(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	m := signedMessage("alice@example.test")
	r := send(t, e.sender(sk.port, nil), m)[0]
	wantDelivered(t, r, "mx1.example.test")
	if r.EnhancedCode != "2.0.0" || r.TLS {
		t.Fatalf("result %+v", r)
	}
	msgs := sk.messages()
	if len(msgs) != 1 || !bytes.Equal(msgs[0].data, m.Data) {
		t.Fatalf("received %q\nwant %q", msgs[0].data, m.Data)
	}
	if msgs[0].from != m.From || msgs[0].helo != "herald.test" || strings.Join(msgs[0].to, ",") != "alice@example.test" {
		t.Fatalf("envelope %+v", msgs[0])
	}
}

func TestOneRecipientRefused(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.rcpt = func(to string) error {
			if strings.HasPrefix(to, "nobody@") {
				return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
			}
			return nil
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	res := send(t, e.sender(sk.port, nil), signedMessage("a@example.test", "nobody@example.test", "b@example.test"))
	wantDelivered(t, res[0], "mx1.example.test")
	wantFailed(t, res[1], false, 550, "5.1.1")
	wantDelivered(t, res[2], "mx1.example.test")
	if res[1].Message != "no such user" || res[1].MXHost != "mx1.example.test" {
		t.Fatalf("refusal %+v", res[1])
	}
	if msgs := sk.messages(); len(msgs) != 1 || strings.Join(msgs[0].to, ",") != "a@example.test,b@example.test" {
		t.Fatalf("received %+v", msgs)
	}
}

func TestRcpt4xxIsTemporary(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.rcpt = func(string) error {
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "greylisted"}
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 451, "4.7.1")
	if len(sk.messages()) != 0 {
		t.Fatal("DATA sent although no recipient was accepted")
	}
}

func TestData5xxIsPermanentForAll(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.data = func(_ *session, r io.Reader) error {
			io.Copy(io.Discard, r)
			return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "spam"}
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	for _, r := range send(t, e.sender(sk.port, nil), signedMessage("a@example.test", "b@example.test")) {
		wantFailed(t, r, false, 554, "5.7.1")
	}
}

func TestDropMidDataIsTemporary(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.data = func(ss *session, r io.Reader) error {
			io.ReadFull(r, make([]byte, 100))
			ss.c.Conn().Close()
			return io.ErrUnexpectedEOF
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	m := signedMessage("a@example.test")
	m.Data = bytes.Repeat(m.Data, 200) // larger than socket buffers: the drop hits the writes
	r := send(t, e.sender(sk.port, nil), m)[0]
	wantFailed(t, r, true, 0, "4.4.2")
	if !strings.Contains(r.Message, "DATA") {
		t.Fatalf("message %q", r.Message)
	}
}

func TestFirstMXDownSecondUp(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	// Nothing listens on 127.0.0.2 at the sink's port: connection refused.
	e.mx("example.test", "mx1.example.test", "127.0.0.2", "mx2.example.test", "127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantDelivered(t, r, "mx2.example.test")
}

// TestBadFirstMX covers first MX hosts that accept but misbehave: the
// attempt moves on within the greeting timeout.
func TestBadFirstMX(t *testing.T) {
	cases := map[string]func(net.Conn){
		"silent":     func(c net.Conn) { time.Sleep(3 * time.Second); c.Close() },
		"421 banner": func(c net.Conn) { io.WriteString(c, "421 4.3.2 busy\r\n"); c.Close() },
		"hang up":    func(c net.Conn) { c.Close() },
	}
	for name, serve := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			sk := startSink(t, "", 0)
			bad := listenRaw(t, "127.0.0.2", sk.port, serve)
			e.mx("example.test", "mx1.example.test", bad, "mx2.example.test", "127.0.0.1")
			s := e.sender(sk.port, func(c *Config) { c.Timeouts.Greeting = 300 * time.Millisecond })
			start := time.Now()
			wantDelivered(t, send(t, s, signedMessage("a@example.test"))[0], "mx2.example.test")
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v", d)
			}
		})
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

func TestAllMXDownIsTemporary(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.2", "mx2.example.test", "127.0.0.3")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 0, "4.4.1")
	if r.MXHost != "mx2.example.test" {
		t.Fatalf("last host %q", r.MXHost)
	}
}

func TestNullMXIsPermanent(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.dns.Add(t, "example.test. 300 IN MX 0 .", "example.test. 300 IN A 127.0.0.1")
	r := send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, false, 0, "5.1.10")
	if !strings.Contains(r.Message, "null MX") || sk.accepts.Load() != 0 {
		t.Fatalf("%+v, %d connections", r, sk.accepts.Load())
	}
}

func TestNoMXFallsBackToAddress(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.dns.Add(t, "example.test. 300 IN A 127.0.0.1")
	wantDelivered(t, send(t, e.sender(sk.port, nil), signedMessage("a@example.test"))[0], "example.test")
}

func TestNoMXNoAddressIsPermanent(t *testing.T) {
	e := newEnv(t)
	e.dns.Add(t, "example.test. 300 IN TXT \"v=spf1 -all\"")
	wantFailed(t, send(t, e.sender(25, nil), signedMessage("a@example.test"))[0], false, 0, "5.1.2")
}

func TestDNSServfailIsTemporary(t *testing.T) {
	e := newEnv(t)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	e.dns.SetRcode("example.test", dns.RcodeServerFailure)
	r := send(t, e.sender(25, nil), signedMessage("a@example.test"))[0]
	wantFailed(t, r, true, 0, "4.4.3")
}

func TestContextEndsAttempt(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.data = func(_ *session, r io.Reader) error {
			io.Copy(io.Discard, r)
			time.Sleep(3 * time.Second)
			return nil
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Send(ctx, signedMessage("a@example.test"))[0]
	if d := time.Since(start); d > 2*time.Second || r.Delivered || !r.Temporary {
		t.Fatalf("after %v: %+v", d, r)
	}
}

func TestInvalidEnvelope(t *testing.T) {
	e := newEnv(t)
	s := e.sender(25, nil)
	m := signedMessage("a@example.test", "b@example.test\r\nRCPT TO:<x@y>")
	m.Domain = ""
	res := send(t, s, m)
	if res[1].Temporary || res[1].EnhancedCode != "5.1.3" {
		t.Fatalf("bad recipient: %+v", res[1])
	}
	if res[0].EnhancedCode != "5.1.2" { // nothing published for example.test
		t.Fatalf("valid recipient: %+v", res[0])
	}
	m = signedMessage("a@example.test")
	m.From = "x@y>\r\nDATA"
	if r := send(t, s, m)[0]; r.Temporary || r.EnhancedCode != "5.1.7" {
		t.Fatalf("bad sender: %+v", r)
	}
}
