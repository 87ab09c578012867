package smtpout

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// eachDataCommand runs a test once with BDAT, which go-smtp's server
// offers (CHUNKING), and once with DATA, as to a server that does not.
func eachDataCommand(t *testing.T, test func(t *testing.T, noChunking func(*Config), command string)) {
	t.Run("BDAT", func(t *testing.T) { test(t, nil, "BDAT ") })
	t.Run("DATA", func(t *testing.T) { test(t, func(c *Config) { c.NoChunking = true }, "DATA\r\n") })
}

func TestDeliveredBytesIdentical(t *testing.T) {
	eachDataCommand(t, func(t *testing.T, mode func(*Config), command string) {
		e := newEnv(t)
		var heard transcript
		sk := startSink(t, "", 0, withTranscript(&heard))
		e.mx("example.test", "mx1.example.test", "127.0.0.1")
		s := e.sender(sk.port, mode)
		for i := range 2 { // the second message reuses the session
			m := signedMessage("alice@example.test")
			r := send(t, s, m)[0]
			wantDelivered(t, r, "mx1.example.test")
			if r.EnhancedCode != "2.0.0" || r.TLS {
				t.Fatalf("result %+v", r)
			}
			msgs := sk.messages()
			if len(msgs) != i+1 || !bytes.Equal(msgs[i].data, m.Data) {
				t.Fatalf("received %q\nwant %q", msgs[i].data, m.Data)
			}
			if msgs[i].from != m.From || msgs[i].helo != "herald.test" || strings.Join(msgs[i].to, ",") != "alice@example.test" {
				t.Fatalf("envelope %+v", msgs[i])
			}
		}
		if n := sk.accepts.Load(); n != 1 {
			t.Errorf("%d connections for two messages", n)
		}
		if got := strings.Count(heard.String(), command); got != 2 {
			t.Errorf("the server heard %q %d times:\n%s", command, got, heard.String())
		}
	})
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
	eachDataCommand(t, testData5xxIsPermanentForAll)
}

func testData5xxIsPermanentForAll(t *testing.T, mode func(*Config), _ string) {
	e := newEnv(t)
	sk := startSink(t, "", 0, func(s *sink) {
		s.data = func(_ *session, r io.Reader) error {
			io.Copy(io.Discard, r)
			return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "spam"}
		}
	})
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	s := e.sender(sk.port, mode)
	for range 2 { // the refusal leaves the session usable for the next message
		for _, r := range send(t, s, signedMessage("a@example.test", "b@example.test")) {
			wantFailed(t, r, false, 554, "5.7.1")
		}
	}
	if n := sk.accepts.Load(); n != 1 {
		t.Errorf("%d connections for two messages", n)
	}
}

func TestDropMidDataIsTemporary(t *testing.T) {
	eachDataCommand(t, func(t *testing.T, mode func(*Config), command string) {
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
		r := send(t, e.sender(sk.port, mode), m)[0]
		wantFailed(t, r, true, 0, "4.4.2")
		if !strings.Contains(r.Message, strings.TrimSpace(command)) {
			t.Fatalf("message %q", r.Message)
		}
	})
}

// TestStalledServer: a server that takes the message but never answers the
// final dot is cut off by the Data timeout or by the caller's context.
func TestStalledServer(t *testing.T) {
	cases := map[string]struct {
		timeouts Timeouts
		ctx      time.Duration
	}{
		"data timeout":     {Timeouts{Data: 300 * time.Millisecond}, 20 * time.Second},
		"context deadline": {Timeouts{}, 300 * time.Millisecond},
	}
	for name, tc := range cases {
		eachDataCommand(t, func(t *testing.T, mode func(*Config), _ string) {
			t.Log(name)
			e := newEnv(t)
			sk := startSink(t, "", 0, func(s *sink) {
				s.data = func(_ *session, r io.Reader) error {
					io.Copy(io.Discard, r)
					time.Sleep(3 * time.Second)
					return nil
				}
			})
			e.mx("example.test", "mx1.example.test", "127.0.0.1")
			s := e.sender(sk.port, func(c *Config) {
				if tc.timeouts.Data > 0 {
					c.Timeouts.Data = tc.timeouts.Data
				}
				if mode != nil {
					mode(c)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), tc.ctx)
			defer cancel()
			start := time.Now()
			r := s.Send(ctx, signedMessage("a@example.test"))[0]
			if d := time.Since(start); d > 2*time.Second || r.Delivered || !r.Temporary {
				t.Fatalf("after %v: %+v", d, r)
			}
			t.Logf("%+v", r)
		})
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

// countingDialer counts the writes made on the connections it opens.
type countingDialer struct {
	net.Dialer
	writes atomic.Int64
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dialer.DialContext(ctx, network, addr)
	return &countingConn{Conn: c, writes: &d.writes}, err
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// A message leaves in one write, not one per 4 KB of go-smtp's buffer, and
// arrives intact.
func TestMessageLeavesInOneWrite(t *testing.T) {
	e := newEnv(t)
	sk := startSink(t, "", 0)
	e.mx("example.test", "mx1.example.test", "127.0.0.1")
	d := &countingDialer{}
	s := New(Config{Hostname: "herald.test", Port: sk.port}, e.res, d, testLogger(t))
	t.Cleanup(func() { s.Close() })
	m := signedMessage("alice@example.test")
	m.Data = append(m.Data, bytes.Repeat([]byte(".dot-stuffed line of a long message\r\n"), 1000)...) // 37 KB
	wantDelivered(t, send(t, s, m)[0], "mx1.example.test")
	// EHLO (twice: before STARTTLS would be offered, and go-smtp's own),
	// MAIL, RCPT, DATA, the message: one write each.
	if n := d.writes.Load(); n > 6 {
		t.Fatalf("%d writes for one delivery", n)
	}
	if got := sk.messages(); len(got) != 1 || !bytes.Equal(got[0].data, m.Data) {
		t.Fatal("message changed in transit")
	}
}
