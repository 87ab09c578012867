package smtpout

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
)

// The two benchmarks deliver the same 10 KB message into the same kind of
// local go-smtp sink over the same number of persistent connections: one
// through Sender (MX lookup against a loopback DNS server, pool, limiter,
// classification), one with a bare go-smtp Client per connection. The
// ratio of their rates is the Sender's efficiency.
//
//	go test -run '^$' -bench . -benchtime 3s ./smtpout/

var benchConns = []int{1, 4, 16}

func benchMessage() Message {
	var sb strings.Builder
	sb.WriteString("DKIM-Signature: v=1; a=rsa-sha256; d=herald.test; s=k1; b=abc\r\n")
	sb.WriteString("From: news@herald.test\r\nTo: a@example.test\r\nSubject: bench\r\n\r\n")
	for sb.Len() < 10*1024 {
		sb.WriteString(strings.Repeat("x", 76) + "\r\n")
	}
	return Message{From: "bounce+b@herald.test", To: []string{"a@example.test"}, Domain: "example.test", Data: []byte(sb.String())}
}

func benchSink(b *testing.B) *sink {
	return startSink(b, "", 0, func(s *sink) {
		s.data = func(_ *session, r io.Reader) error {
			_, err := io.Copy(io.Discard, r)
			return err
		}
	})
}

// parallel runs b.N iterations of do across n workers.
func parallel(b *testing.B, n int, do func(worker int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.SetBytes(int64(len(benchMessage().Data)))
	b.ResetTimer()
	for w := range n {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := do(w); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkSendPooled(b *testing.B) {
	for _, n := range benchConns {
		b.Run("conns="+strconv.Itoa(n), func(b *testing.B) {
			sk := benchSink(b)
			d := dnstest.Start(b)
			d.Add(b, "example.test. 300 IN MX 10 mx1.example.test.", "mx1.example.test. 300 IN A 127.0.0.1")
			benchSender(b, sk, resolver.New(d.Addr, 0), n, 0)
		})
	}
}

// BenchmarkSendPooledUncached is BenchmarkSendPooled with the MX cache off,
// so that every message costs a query to the loopback DNS server.
func BenchmarkSendPooledUncached(b *testing.B) {
	for _, n := range benchConns {
		b.Run("conns="+strconv.Itoa(n), func(b *testing.B) {
			sk := benchSink(b)
			d := dnstest.Start(b)
			d.Add(b, "example.test. 300 IN MX 10 mx1.example.test.", "mx1.example.test. 300 IN A 127.0.0.1")
			benchSender(b, sk, resolver.New(d.Addr, 0), n, -1)
		})
	}
}

func benchSender(b *testing.B, sk *sink, r Resolver, n int, mxCache time.Duration) {
	cfg := Config{Hostname: "herald.test", Port: sk.port, MaxConnsPerDomain: n, MXCacheTTL: mxCache}
	s := New(cfg, r, &net.Dialer{}, nil)
	defer s.Close()
	m := benchMessage()
	parallel(b, n, func(int) error {
		if r := s.Send(context.Background(), m)[0]; !r.Delivered {
			return &smtp.SMTPError{Code: r.Code, Message: r.Message}
		}
		return nil
	})
	b.StopTimer()
	if c := sk.accepts.Load(); c > int64(n) {
		b.Fatalf("%d connections for %d workers", c, n)
	}
}

// BenchmarkRawClient is the baseline: n persistent go-smtp clients sending
// the same bytes with MAIL, RCPT, DATA and nothing else.
func BenchmarkRawClient(b *testing.B) {
	for _, n := range benchConns {
		b.Run("conns="+strconv.Itoa(n), func(b *testing.B) {
			sk := benchSink(b)
			m := benchMessage()
			clients := make([]*smtp.Client, n)
			for i := range clients {
				c, err := smtp.Dial(sk.addr)
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Hello("herald.test"); err != nil {
					b.Fatal(err)
				}
				defer c.Quit()
				clients[i] = c
			}
			parallel(b, n, func(w int) error { return rawSend(clients[w], m) })
		})
	}
}

func rawSend(c *smtp.Client, m Message) error {
	if err := c.Mail(m.From, nil); err != nil {
		return err
	}
	if err := c.Rcpt(m.To[0], nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(m.Data); err != nil {
		return err
	}
	return w.Close()
}
