// Package smtptest runs a real SMTP server (go-smtp) on loopback that keeps
// what it receives, for tests of the whole send path. A test can script
// answers per recipient: a temporary failure some number of times, a
// permanent refusal, or a connection dropped in the middle of DATA.
package smtptest

import (
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Received is one message as the sink accepted it.
type Received struct {
	From string
	To   []string
	Data []byte
}

// Sink is a loopback SMTP server.
type Sink struct {
	Addr string // 127.0.0.1:port
	Port int

	mu       sync.Mutex
	received []Received
	tempFail map[string]int // recipient -> temporary failures still to give
	reject   map[string]bool
	dropData int // connections still to drop mid-DATA
	discard  bool
	counted  int // messages accepted while discarding, kept as a count only
	arrived  chan struct{}
	srv      *smtp.Server
}

// Start starts a sink and stops it when the test ends.
func Start(t testing.TB) *Sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{Addr: ln.Addr().String(), Port: ln.Addr().(*net.TCPAddr).Port,
		tempFail: map[string]int{}, reject: map[string]bool{}, arrived: make(chan struct{}, 1)}
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "sink.test"
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.MaxMessageBytes = 64 << 20
	s.srv.AllowInsecureAuth = true
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// TempFail makes RCPT for rcpt answer 451 the next n times.
func (s *Sink) TempFail(rcpt string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tempFail[rcpt] = n
}

// Reject makes RCPT for rcpt answer 550 (no such user).
func (s *Sink) Reject(rcpt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject[rcpt] = true
}

// DropDuringData makes the next n sessions close the connection while the
// message is being sent.
func (s *Sink) DropDuringData(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropData = n
}

// DiscardData makes the sink keep only a count of the messages that arrive
// from now on, neither their bytes nor their envelopes, so that a benchmark
// sending many messages measures the sender's memory, not the sink's (a
// million envelopes are a hundred megabytes). Messages then returns only
// those kept before; Count and WaitCount count them all.
func (s *Sink) DiscardData() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discard = true
}

// Messages returns what has arrived so far.
func (s *Sink) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Count is how many messages have arrived.
func (s *Sink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.received) + s.counted
}

// WaitCount waits until at least n messages have arrived or the timeout
// passes, and returns how many have.
func (s *Sink) WaitCount(n int, timeout time.Duration) int {
	deadline := time.After(timeout)
	for {
		if c := s.Count(); c >= n {
			return c
		}
		select {
		case <-s.arrived:
		case <-deadline:
			return s.Count()
		}
	}
}

// Wait waits until at least n messages have arrived or the timeout passes.
func (s *Sink) Wait(n int, timeout time.Duration) []Received {
	deadline := time.After(timeout)
	for {
		if s.Count() >= n {
			return s.Messages()
		}
		select {
		case <-s.arrived:
		case <-deadline:
			return s.Messages()
		}
	}
}

// NewSession implements smtp.Backend.
func (s *Sink) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{sink: s, conn: c}, nil
}

type session struct {
	sink *Sink
	conn *smtp.Conn
	from string
	to   []string
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s := ss.sink
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reject[to] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user " + to}
	}
	if s.tempFail[to] > 0 {
		s.tempFail[to]--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	ss.to = append(ss.to, to)
	return nil
}

var errDropped = errors.New("connection dropped by the test")

func (ss *session) Data(r io.Reader) error {
	s := ss.sink
	s.mu.Lock()
	drop := s.dropData > 0
	if drop {
		s.dropData--
	}
	s.mu.Unlock()
	if drop {
		_, _ = io.CopyN(io.Discard, r, 64)
		ss.conn.Conn().Close()
		return errDropped
	}
	s.mu.Lock()
	discard := s.discard
	s.mu.Unlock()
	var data []byte
	var err error
	if discard {
		_, err = io.Copy(io.Discard, r)
	} else {
		data, err = io.ReadAll(r)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	if discard {
		s.counted++
	} else {
		s.received = append(s.received, Received{From: ss.from, To: ss.to, Data: data})
	}
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	return nil
}

// PortString is the sink's port as text, for HERALD_SMTP_PORT.
func (s *Sink) PortString() string { return strconv.Itoa(s.Port) }
