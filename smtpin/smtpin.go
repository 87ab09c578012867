// Package smtpin is Herald's inbound SMTP listener. It receives the
// bounces and complaint reports that mail systems send back to return-path
// addresses. It accepts mail only for recipients its Handler accepts (it is
// no relay and no general mailbox), caps the message size, the number of
// connections and the time a client may stay silent, and hands each
// message whole to the Handler. What the mail means is the Handler's
// business.
//
// The package also holds the submission listener (Submission, RFC 6409):
// applications that can only send through SMTP authenticate with a
// project's secret key inside TLS, and each recipient of their messages
// becomes one email through a Submitter, the application's /v1/send path.
package smtpin

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/emersion/go-smtp"
	"golang.org/x/net/netutil"
)

// Handler decides which recipients to accept and takes each message.
type Handler interface {
	// Accept reports whether mail for the address is wanted. An error is
	// a failure to decide, answered as a temporary one.
	Accept(ctx context.Context, address string) (bool, error)
	// Deliver takes one message for accepted recipients. An error is
	// answered as temporary, so the sender tries again later.
	Deliver(ctx context.Context, from string, to []string, data []byte) error
}

// Config tunes the listener. Zero values take the defaults.
type Config struct {
	Hostname        string        // name in the greeting; default "localhost"
	MaxMessageBytes int64         // default 10 MB
	MaxRecipients   int           // per message; default 10
	MaxConnections  int           // at once; default 32
	Timeout         time.Duration // silence allowed, and the time DATA may take; default 5 min (RFC 5321 4.5.3.2)
	HandlerTimeout  time.Duration // per Handler call; default 30 s
	// TLSConfig, when set, makes the listener offer STARTTLS with it.
	TLSConfig *tls.Config
}

func (c Config) withDefaults() Config {
	if c.Hostname == "" {
		c.Hostname = "localhost"
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = 10 << 20
	}
	if c.MaxRecipients <= 0 {
		c.MaxRecipients = 10
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = 32
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Minute
	}
	if c.HandlerTimeout <= 0 {
		c.HandlerTimeout = 30 * time.Second
	}
	return c
}

// Server is an inbound SMTP listener.
type Server struct {
	cfg     Config
	handler Handler
	log     *slog.Logger
	srv     *smtp.Server
	// ctx parents every Handler call; cancelled when the server closes,
	// so no call outlives it.
	ctx    context.Context
	cancel context.CancelFunc
}

// New builds a listener; Serve starts it.
func New(cfg Config, h Handler, log *slog.Logger) *Server {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, handler: h, log: log, ctx: ctx, cancel: cancel}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Domain = cfg.Hostname
	s.srv.MaxMessageBytes = cfg.MaxMessageBytes
	s.srv.MaxRecipients = cfg.MaxRecipients
	s.srv.ReadTimeout = cfg.Timeout
	s.srv.WriteTimeout = cfg.Timeout
	s.srv.ErrorLog = errorLog{log, "inbound smtp: "}
	s.srv.TLSConfig = cfg.TLSConfig
	return s
}

// Serve accepts connections on ln until Shutdown or Close. It returns nil
// once the server is stopped.
func (s *Server) Serve(ln net.Listener) error {
	return s.srv.Serve(netutil.LimitListener(ln, s.cfg.MaxConnections))
}

// Shutdown stops accepting connections and waits, until ctx ends, for the
// sessions under way to finish; then it closes the rest.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.Close()
	return err
}

// Close closes the listener and every connection at once.
func (s *Server) Close() {
	s.cancel()
	_ = s.srv.Close()
}

// call bounds one Handler call.
func (s *Server) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.cfg.HandlerTimeout)
}

// errorLog sends go-smtp's internal errors to the structured log, each
// message after the listener's prefix.
type errorLog struct {
	log    *slog.Logger
	prefix string
}

func (l errorLog) Printf(format string, v ...any) {
	l.log.Warn(l.prefix + fmt.Sprintf(format, v...))
}
func (l errorLog) Println(v ...any) { l.log.Warn(l.prefix + fmt.Sprint(v...)) }
