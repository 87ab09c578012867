package smtpin

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// The submission listener's fixed limits (the integrations contract).
const (
	// SubmissionMaxMessageBytes is the largest message, advertised as
	// SIZE 41943040.
	SubmissionMaxMessageBytes = 40 << 20
	// SubmissionMaxRecipients is the most RCPT per message; the next is
	// answered 452 4.5.3.
	SubmissionMaxRecipients = 50
	// SubmissionFailedAuthLimit is how many wrong keys one address may
	// send in the key-failure window before its next AUTH, and every new
	// connection, is answered 421 4.7.0 and closed.
	SubmissionFailedAuthLimit = 10
)

// ErrBadKey is what Submitter.Authenticate returns for a password that is
// not a current secret key: a public key, an old key, a wrong one, an
// empty one. It is answered 535 5.7.8 and counted against the address.
var ErrBadKey = errors.New("smtpin: not a secret key of any project")

// Reason says why a Rejection refuses.
type Reason int

// The refusals a Sender may answer with, each with its reply.
const (
	RejectSenderDomain Reason = iota + 1 // 550 5.7.1: not a verified domain of the project; name the domain
	RejectBillingCap                     // 452 4.3.1: over a billing cap of the project
	RejectRecipient                      // 550 5.1.3: a recipient /v1/send would refuse
	RejectMessage                        // 554 5.6.0: the message itself (malformed, too large for a part, ...)
)

// Rejection is an answer a Sender gives on purpose; Message, one line
// meant for the client's log, follows the reply code. Any other error is
// answered 451 4.3.0 (try again later) and logged.
type Rejection struct {
	Reason  Reason
	Message string
}

func (r *Rejection) Error() string { return "smtpin: rejected: " + r.Message }

// Envelope is one transaction's MAIL FROM and RCPT TO addresses.
type Envelope struct {
	From string
	To   []string
}

// Submitter is the application behind the submission listener: the same
// path as /v1/send, declared here so that smtpin does not import it.
type Submitter interface {
	// Authenticate returns the Sender of the project whose secret key
	// this is, or ErrBadKey.
	Authenticate(ctx context.Context, secretKey string) (Sender, error)
}

// Sender acts for one authenticated project.
type Sender interface {
	// ProjectID names the project in logs.
	ProjectID() string
	// CheckSender refuses an address that is not at a verified domain of
	// the project with a Rejection (RejectSenderDomain). The listener asks
	// it for MAIL FROM and for each address of the message's From field.
	CheckSender(ctx context.Context, address string) error
	// Submit makes one email per envelope recipient, exactly as one
	// /v1/send recipient each, and returns their ids in recipient order
	// once they are committed: the client is answered 250 only then.
	// message is the client's message, each line ending in CRLF, whose
	// From field the listener has checked; Submit checks the From it
	// will send again, on the message as parsed for sending. A client
	// answered with an error sends the whole message again (4xx) or gives
	// up (5xx), so Submit refuses before committing any email when it
	// can (every recipient and the message checked first).
	Submit(ctx context.Context, env Envelope, message []byte) (emailIDs []string, err error)
}

// KeyFailures is the per-address count of wrong keys that the HTTP API
// keeps too: SMTP and API wrong keys count in one counter. ip is the
// client's address, an IPv6 address by its /64 (as the API keys it).
type KeyFailures interface {
	// Blocked reports whether ip has sent limit or more wrong keys in the
	// current window, and how long until the window ends.
	Blocked(ip string, limit int) (blocked bool, retryAfter time.Duration)
	// Count counts one wrong key from ip.
	Count(ip string)
}

// SubmissionConfig tunes the submission listener. Zero values take the
// defaults.
type SubmissionConfig struct {
	Hostname  string      // name in the greeting; default "localhost"
	TLSConfig *tls.Config // required: STARTTLS on Serve, implicit TLS on ServeTLS
	// KeyFailures counts wrong keys per address; nil: no limit (as with
	// HERALD_RATE_LIMIT=0).
	KeyFailures         KeyFailures
	MaxConnections      int           // at once, all addresses; default 100
	MaxConnectionsPerIP int           // at once from one address; default 20
	MaxMessagesInMemory int           // DATA phases at once (each up to 40 MB); default 8
	Timeout             time.Duration // silence allowed between commands and within DATA; default 5 min
	CallTimeout         time.Duration // per Authenticate and CheckSender; default 30 s
	SubmitTimeout       time.Duration // per Submit; default 2 min
}

func (c SubmissionConfig) withDefaults() SubmissionConfig {
	if c.Hostname == "" {
		c.Hostname = "localhost"
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = 100
	}
	if c.MaxConnectionsPerIP <= 0 {
		c.MaxConnectionsPerIP = 20
	}
	if c.MaxMessagesInMemory <= 0 {
		c.MaxMessagesInMemory = 8
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Minute
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 30 * time.Second
	}
	if c.SubmitTimeout <= 0 {
		c.SubmitTimeout = 2 * time.Minute
	}
	return c
}

// Submission is the SMTP submission listener (RFC 6409): applications
// send mail through it with a project's secret key as the password. One
// Submission serves a STARTTLS port (Serve) and an implicit-TLS port
// (ServeTLS) with the same limits.
type Submission struct {
	cfg SubmissionConfig
	sub Submitter
	log *slog.Logger
	srv *smtp.Server
	// ctx parents every Submitter call; cancelled when the server closes.
	ctx    context.Context
	cancel context.CancelFunc
	// dataSlots bounds the messages held in memory at once.
	dataSlots chan struct{}
	conns     connTable
}

// NewSubmission builds the listener; Serve and ServeTLS start it.
func NewSubmission(cfg SubmissionConfig, sub Submitter, log *slog.Logger) (*Submission, error) {
	if cfg.TLSConfig == nil {
		return nil, errors.New("smtpin: the submission listener needs a TLS configuration")
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Submission{cfg: cfg, sub: sub, log: log, ctx: ctx, cancel: cancel,
		dataSlots: make(chan struct{}, cfg.MaxMessagesInMemory),
		conns:     connTable{perIP: map[string]int{}, refusals: make(chan struct{}, 64)}}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Domain = cfg.Hostname
	s.srv.MaxMessageBytes = SubmissionMaxMessageBytes
	s.srv.MaxRecipients = SubmissionMaxRecipients
	s.srv.ReadTimeout = cfg.Timeout
	s.srv.WriteTimeout = cfg.Timeout
	s.srv.ErrorLog = errorLog{log, "submission smtp: "}
	s.srv.TLSConfig = cfg.TLSConfig
	// go-smtp would answer AUTH before TLS itself, with 523 5.7.10; letting
	// it through to the session answers 530 5.7.0 instead, and the session
	// offers no mechanism before TLS, so EHLO shows AUTH only inside it.
	s.srv.AllowInsecureAuth = true
	return s, nil
}

// Serve accepts connections on ln that start in plain text and offer
// STARTTLS (port 587). It returns nil once the server is stopped.
func (s *Submission) Serve(ln net.Listener) error {
	return s.srv.Serve(&guardListener{Listener: ln, s: s})
}

// ServeTLS accepts connections on ln that start with a TLS handshake
// (implicit TLS, port 465, RFC 8314).
func (s *Submission) ServeTLS(ln net.Listener) error {
	return s.srv.Serve(&guardListener{Listener: ln, s: s, tls: s.cfg.TLSConfig})
}

// Shutdown stops accepting connections and waits, until ctx ends, for the
// sessions under way to finish; then it closes the rest.
func (s *Submission) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.Close()
	return err
}

// Close closes the listeners and every connection at once.
func (s *Submission) Close() {
	s.cancel()
	_ = s.srv.Close()
}

// call bounds one Submitter call.
func (s *Submission) call(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, d)
}

// blocked reports whether ip has sent too many wrong keys this window.
func (s *Submission) blocked(ip string) (bool, time.Duration) {
	if s.cfg.KeyFailures == nil {
		return false, 0
	}
	return s.cfg.KeyFailures.Blocked(ip, SubmissionFailedAuthLimit)
}

func (s *Submission) countFailure(ip string) {
	if s.cfg.KeyFailures != nil {
		s.cfg.KeyFailures.Count(ip)
	}
}

// connTable counts the open connections, in all and per address.
type connTable struct {
	mu    sync.Mutex
	total int
	perIP map[string]int
	// refusals bounds the goroutines that answer refused connections.
	refusals chan struct{}
}
