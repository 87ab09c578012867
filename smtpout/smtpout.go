// Package smtpout makes one delivery attempt of one already-signed message to
// its recipients at one destination domain, and reports a typed Result per
// recipient. Queueing, retry scheduling and storage belong to the caller: it
// calls Send once per attempt and decides from Result.Temporary whether to
// try again later.
//
// Direct-to-MX delivery resolves the domain's MX hosts through the injected
// Resolver and tries them in order of preference, each with an opportunistic
// STARTTLS ladder (verified, then unverified, then plain text). Relay mode
// sends everything through one smarthost instead. Connections are kept idle
// per host for reuse, and concurrency is bounded per destination domain.
package smtpout

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/heraldmail/herald/resolver"
)

// Resolver is the DNS a Sender needs; *resolver.Client satisfies it.
type Resolver interface {
	MX(ctx context.Context, domain string) ([]resolver.MX, error)
	IPs(ctx context.Context, host string) ([]netip.Addr, error)
}

// Dialer opens TCP connections; *net.Dialer satisfies it.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Timeouts bound each step of a session. RFC 5321 §4.5.3.2 suggests 5
// minutes for most replies and 10 for the final dot; a sender whose queue
// retries gains little from waiting that long on a stalled host, so the
// defaults are shorter.
type Timeouts struct {
	Connect  time.Duration // TCP connect; default 30s
	Greeting time.Duration // the 220 banner; default 1m
	Command  time.Duration // each reply, EHLO to DATA's 354, and TLS handshakes; default 1m
	Data     time.Duration // writing the message and the reply to the final dot; default 3m
}

// Config configures a Sender. Zero values take the documented defaults.
type Config struct {
	Hostname string // EHLO name (HERALD_HOSTNAME); default os.Hostname()
	Port     int    // destination port for direct-to-MX (HERALD_SMTP_PORT); default 25

	Relay            string // "host:port" smarthost (HERALD_SMTP_RELAY); when set, no MX lookup
	RelayUsername    string // AUTH PLAIN, or LOGIN when the relay offers only LOGIN
	RelayPassword    string
	RelayImplicitTLS bool // TLS from the first byte (port 465) instead of STARTTLS

	TLSConfig *tls.Config // base TLS config (tests inject RootCAs); ServerName is set per host
	Timeouts  Timeouts

	// NoChunking sends every message with DATA even to servers that offer
	// CHUNKING (RFC 3030 BDAT), for a server whose BDAT is broken.
	NoChunking bool

	MaxConnsPerDomain int           // concurrent Sends (each one session at a time) per domain; default 3
	MaxIdlePerHost    int           // idle connections kept per host; default MaxConnsPerDomain
	IdleTimeout       time.Duration // how long an idle connection may wait for reuse; default 30s
	TLSMemory         time.Duration // how long a host's working STARTTLS rung is remembered; default 1h
	MXCacheTTL        time.Duration // how long an MX answer is reused; default 1m, negative disables

	// Now is the clock of the TLS memory and the MX cache (the injected
	// clock); default time.Now. Network deadlines always use real time.
	Now func() time.Time
}

// Message is one signed message for recipients at one domain.
type Message struct {
	From       string   // envelope MAIL FROM (return path), may be VERP; "" is the null sender
	To         []string // envelope recipients, all at Domain
	Domain     string   // destination domain; derived from To[0] when empty
	Data       []byte   // signed RFC 5322 bytes with CRLF line endings, sent unchanged
	RequireTLS bool     // never in plain text; an unverified certificate is accepted
}

// Result is the outcome of one attempt for one recipient. A failure to
// reach any server is always Temporary, even when its code is 5xx (a 554
// banner, a relay refusing our AUTH): the recipient is not at fault, so it
// must not bounce.
type Result struct {
	Recipient    string
	Delivered    bool   // the server accepted the message for this recipient
	Temporary    bool   // not delivered, and worth retrying later
	Code         int    // SMTP reply code; 0 when no server answered (DNS, network)
	EnhancedCode string // RFC 3463 code such as "5.1.1", from the server or chosen locally
	Message      string // the server's reply text, or a description of the local failure
	MXHost       string // the host that gave the answer, or was tried last
	TLS          bool   // the session that gave the answer was encrypted
	// RelayAuth: the smarthost refused Herald's credentials (a 5xx reply
	// to AUTH). The operator must fix the configuration; the message is
	// not at fault and should wait rather than use up its retries.
	RelayAuth bool
}

// Sender delivers messages. It is safe for concurrent use; Close it to say
// QUIT on pooled connections.
type Sender struct {
	cfg    Config
	res    Resolver
	dialer Dialer
	log    *slog.Logger

	limits  *limiter
	pool    *pool
	memo    *tlsMemo
	mxCache *ttlMap[mxAnswer]

	closeOnce sync.Once
	stop      chan struct{}
	wg        sync.WaitGroup
}

// New returns a Sender. A nil logger discards logs.
func New(cfg Config, r Resolver, d Dialer, log *slog.Logger) *Sender {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sender{
		cfg:     cfg,
		res:     r,
		dialer:  d,
		log:     log,
		limits:  newLimiter(cfg.MaxConnsPerDomain),
		pool:    newPool(cfg.MaxIdlePerHost, cfg.IdleTimeout),
		memo:    newTLSMemo(cfg.TLSMemory),
		mxCache: newTTLMap[mxAnswer](cfg.MXCacheTTL),
		stop:    make(chan struct{}),
	}
	s.wg.Add(1)
	go s.janitor()
	return s
}

// Validate reports configuration mistakes that would make every send fail,
// so that the caller can refuse to start instead.
func (c Config) Validate() error {
	if c.Relay != "" {
		if _, _, err := splitHostPort(c.Relay); err != nil {
			return err
		}
	}
	if c.Port < 0 || c.Port > 65535 {
		return errors.New("smtpout: port out of range")
	}
	return nil
}

func splitHostPort(hostport string) (string, int, error) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, errors.New("smtpout: relay must be host:port: " + err.Error())
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 || host == "" {
		return "", 0, errors.New("smtpout: relay must be host:port with a numeric port")
	}
	return host, port, nil
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Hostname == "" {
		c.Hostname, _ = os.Hostname()
		if c.Hostname == "" {
			c.Hostname = "localhost"
		}
	}
	if c.Port == 0 {
		c.Port = 25
	}
	setDefault(&c.Timeouts.Connect, 30*time.Second)
	setDefault(&c.Timeouts.Greeting, time.Minute)
	setDefault(&c.Timeouts.Command, time.Minute)
	setDefault(&c.Timeouts.Data, 3*time.Minute)
	setDefault(&c.IdleTimeout, 30*time.Second)
	setDefault(&c.TLSMemory, time.Hour)
	if c.MXCacheTTL == 0 {
		c.MXCacheTTL = time.Minute
	}
	if c.MaxConnsPerDomain <= 0 {
		c.MaxConnsPerDomain = 3
	}
	if c.MaxIdlePerHost <= 0 {
		c.MaxIdlePerHost = c.MaxConnsPerDomain
	}
	return c
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Close says QUIT on every idle connection and stops reuse. Sends still in
// flight finish, and their connections are closed instead of pooled.
func (s *Sender) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.wg.Wait()
		s.quitAll(s.pool.drain())
	})
	return nil
}

// janitor closes connections that have idled past IdleTimeout, so that
// sockets to hosts we stopped sending to do not linger half-closed.
func (s *Sender) janitor() {
	defer s.wg.Done()
	t := time.NewTicker(max(s.cfg.IdleTimeout/2, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.quitAll(s.pool.sweep(now))
		}
	}
}

// quitAll says QUIT on conns in parallel: each may take up to its timeout.
func (s *Sender) quitAll(conns []*conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.quit(s.quitTimeout()) })
	}
	wg.Wait()
}

// quitTimeout bounds a courtesy QUIT; nothing depends on its answer.
func (s *Sender) quitTimeout() time.Duration {
	return min(s.cfg.Timeouts.Command, 5*time.Second)
}
