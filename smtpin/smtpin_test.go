package smtpin_test

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
)

// mailbox is a Handler that accepts addresses starting with "ok", fails
// to decide for "broken", and keeps what it is given; a message
// containing "FAIL" cannot be stored.
type mailbox struct {
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	from string
	to   []string
	data string
}

func (m *mailbox) Accept(_ context.Context, addr string) (bool, error) {
	if strings.HasPrefix(addr, "broken") {
		return false, errors.New("database down")
	}
	return strings.HasPrefix(addr, "ok"), nil
}

func (m *mailbox) Deliver(_ context.Context, from string, to []string, data []byte) error {
	if strings.Contains(string(data), "FAIL") {
		return errors.New("cannot store")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, delivery{from, to, string(data)})
	return nil
}

func (m *mailbox) deliveries() []delivery {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]delivery(nil), m.got...)
}

func start(t *testing.T, cfg smtpin.Config) (*mailbox, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mb := &mailbox{}
	srv := smtpin.New(cfg, mb, slog.New(slog.DiscardHandler))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return mb, ln.Addr().String()
}

func dial(t *testing.T, addr string) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func code(err error) int {
	var e *smtp.SMTPError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestAcceptsOnlyWantedRecipients(t *testing.T) {
	mb, addr := start(t, smtpin.Config{Hostname: "mx.herald.test"})
	c := dial(t, addr)
	if err := c.Mail("", nil); err != nil { // the null sender of bounces
		t.Fatal(err)
	}
	if err := c.Rcpt("someone@example.net", nil); code(err) != 550 {
		t.Errorf("unknown recipient: %v, want 550", err)
	}
	if err := c.Rcpt("broken@herald.test", nil); code(err) != 451 {
		t.Errorf("recipient check failing: %v, want 451", err)
	}
	if err := c.Rcpt("ok1@herald.test", nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("Subject: hi\r\n\r\nbody\r\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := mb.deliveries()
	if len(got) != 1 || got[0].from != "" || len(got[0].to) != 1 || got[0].to[0] != "ok1@herald.test" ||
		got[0].data != "Subject: hi\r\n\r\nbody\r\n" {
		t.Fatalf("deliveries = %+v", got)
	}
}

func TestNoRecipientNoData(t *testing.T) {
	mb, addr := start(t, smtpin.Config{})
	c := dial(t, addr)
	_ = c.Mail("x@example.net", nil)
	_ = c.Rcpt("relay@elsewhere.test", nil)
	if _, err := c.Data(); err == nil {
		t.Fatal("DATA accepted without an accepted recipient")
	}
	if len(mb.deliveries()) != 0 {
		t.Fatal("something was delivered")
	}
}

func send(t *testing.T, addr, body string) error {
	t.Helper()
	c := dial(t, addr)
	if err := c.Mail("", nil); err != nil {
		return err
	}
	if err := c.Rcpt("ok@herald.test", nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	_, _ = w.Write([]byte(body))
	return w.Close()
}

func TestSizeLimitAndStoreFailure(t *testing.T) {
	mb, addr := start(t, smtpin.Config{MaxMessageBytes: 1024})
	if err := send(t, addr, strings.Repeat(strings.Repeat("x", 98)+"\r\n", 20)); code(err) != 552 {
		t.Errorf("oversized: %v, want 552", err)
	}
	if err := send(t, addr, "Subject: FAIL\r\n\r\n"); code(err) != 451 {
		t.Errorf("store failure: %v, want 451 so that the sender retries", err)
	}
	if n := len(mb.deliveries()); n != 0 {
		t.Errorf("%d deliveries", n)
	}
}

func TestSilentClientsAreDisconnected(t *testing.T) {
	_, addr := start(t, smtpin.Config{Timeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	greeting, _ := r.ReadString('\n')
	bye, _ := r.ReadString('\n')
	if !strings.HasPrefix(greeting, "220 ") || !strings.HasPrefix(bye, "421 ") {
		t.Fatalf("greeting %q, then %q", greeting, bye)
	}
}

func TestConnectionLimit(t *testing.T) {
	_, addr := start(t, smtpin.Config{MaxConnections: 1})
	first := dial(t, addr)
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	r := bufio.NewReader(second)
	_ = second.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("second connection greeted while the first is open: %q", line)
	}
	_ = first.Quit()
	_ = second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); !strings.HasPrefix(line, "220 ") {
		t.Fatalf("second connection after the first closed: %q %v", line, err)
	}
}
