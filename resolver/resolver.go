// Package resolver is Herald's DNS client. Every lookup the service makes
// (address verification, sender-domain checks, MX resolution for delivery)
// goes through one Client pointed at one server, so that an operator can
// choose the resolver (HERALD_DNS_SERVER) and tests can point it at a DNS
// server on loopback.
//
// Answers are split three ways, because callers must treat them differently:
// records found; a definite "no such record" (NXDOMAIN or an empty answer),
// reported as ErrNotFound; and anything else (SERVFAIL, REFUSED, timeouts,
// network errors), reported as a *TemporaryError that must never be taken as
// proof that a record is absent.
package resolver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// ErrNotFound is a definite negative answer: the name does not exist or has
// no record of the asked type.
var ErrNotFound = errors.New("dns: no such record")

// TemporaryError is a lookup that failed without a definite answer.
type TemporaryError struct {
	Name string
	Err  error
}

func (e *TemporaryError) Error() string {
	return fmt.Sprintf("dns: temporary failure looking up %s: %v", e.Name, e.Err)
}

func (e *TemporaryError) Unwrap() error { return e.Err }

// IsTemporary reports whether err is a lookup failure that may succeed later.
func IsTemporary(err error) bool {
	var t *TemporaryError
	return errors.As(err, &t)
}

// IsNotFound reports whether err is a definite negative answer.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// MX is one mail exchanger. A null MX (RFC 7505) has Host ".".
type MX struct {
	Host string
	Pref uint16
}

// Client sends queries to one server.
type Client struct {
	server string
	client *dns.Client
}

// DefaultTimeout bounds one query when New is given no timeout.
const DefaultTimeout = 3 * time.Second

// New returns a client for server ("host:port"). An empty server means the
// first nameserver of /etc/resolv.conf, falling back to 127.0.0.1:53.
func New(server string, timeout time.Duration) *Client {
	if server == "" {
		server = systemServer()
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{server: server, client: &dns.Client{Timeout: timeout}}
}

// Server is the address queries are sent to.
func (c *Client) Server() string { return c.server }

func systemServer() string {
	conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
	if err != nil || len(conf.Servers) == 0 {
		return "127.0.0.1:53"
	}
	return net.JoinHostPort(conf.Servers[0], conf.Port)
}

// query sends one question and returns the answer records of type qtype.
// A truncated UDP answer is retried over TCP.
func (c *Client) query(ctx context.Context, name string, qtype uint16) ([]dns.RR, error) {
	fqdn := dns.Fqdn(name)
	msg := new(dns.Msg)
	msg.SetQuestion(fqdn, qtype)
	msg.RecursionDesired = true
	// EDNS0 (RFC 6891) lets an answer of up to 4096 bytes come over UDP:
	// a domain's TXT records (SPF, DKIM keys, verification tokens) often
	// pass the 512 bytes of plain DNS, which would cost a TCP retry each.
	msg.SetEdns0(4096, false)
	in, _, err := c.client.ExchangeContext(ctx, msg, c.server)
	if err == nil && in.Truncated {
		tcp := *c.client
		tcp.Net = "tcp"
		in, _, err = tcp.ExchangeContext(ctx, msg, c.server)
	}
	if err != nil {
		return nil, &TemporaryError{Name: name, Err: err}
	}
	switch in.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return nil, ErrNotFound
	default:
		return nil, &TemporaryError{Name: name, Err: fmt.Errorf("rcode %s", dns.RcodeToString[in.Rcode])}
	}
	var out []dns.RR
	for _, rr := range in.Answer {
		if rr.Header().Rrtype == qtype {
			out = append(out, rr)
		}
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return out, nil
}

// MX returns the mail exchangers of domain sorted by preference.
func (c *Client) MX(ctx context.Context, domain string) ([]MX, error) {
	rrs, err := c.query(ctx, domain, dns.TypeMX)
	if err != nil {
		return nil, err
	}
	out := make([]MX, 0, len(rrs))
	for _, rr := range rrs {
		mx := rr.(*dns.MX)
		host := strings.TrimSuffix(strings.ToLower(mx.Mx), ".")
		if host == "" {
			host = "."
		}
		out = append(out, MX{Host: host, Pref: mx.Preference})
	}
	slices.SortStableFunc(out, func(a, b MX) int { return int(a.Pref) - int(b.Pref) })
	return out, nil
}

// TXT returns the TXT records of name, each record's strings joined.
func (c *Client) TXT(ctx context.Context, name string) ([]string, error) {
	rrs, err := c.query(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rrs))
	for _, rr := range rrs {
		out = append(out, strings.Join(rr.(*dns.TXT).Txt, ""))
	}
	return out, nil
}

// NS returns the name servers of domain.
func (c *Client) NS(ctx context.Context, domain string) ([]string, error) {
	rrs, err := c.query(ctx, domain, dns.TypeNS)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rrs))
	for _, rr := range rrs {
		out = append(out, strings.TrimSuffix(rr.(*dns.NS).Ns, "."))
	}
	return out, nil
}

// A returns the IPv4 addresses of host.
func (c *Client) A(ctx context.Context, host string) ([]netip.Addr, error) {
	return c.addrs(ctx, host, dns.TypeA)
}

// AAAA returns the IPv6 addresses of host.
func (c *Client) AAAA(ctx context.Context, host string) ([]netip.Addr, error) {
	return c.addrs(ctx, host, dns.TypeAAAA)
}

// IPs returns the IPv4 then IPv6 addresses of host. It fails only when
// neither family gave an address; a temporary failure wins over not-found.
func (c *Client) IPs(ctx context.Context, host string) ([]netip.Addr, error) {
	v4, err4 := c.A(ctx, host)
	v6, err6 := c.AAAA(ctx, host)
	all := append(v4, v6...)
	if len(all) > 0 {
		return all, nil
	}
	if IsTemporary(err4) {
		return nil, err4
	}
	if IsTemporary(err6) {
		return nil, err6
	}
	return nil, ErrNotFound
}

func (c *Client) addrs(ctx context.Context, host string, qtype uint16) ([]netip.Addr, error) {
	rrs, err := c.query(ctx, host, qtype)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(rrs))
	for _, rr := range rrs {
		var ip net.IP
		switch r := rr.(type) {
		case *dns.A:
			ip = r.A
		case *dns.AAAA:
			ip = r.AAAA
		}
		if a, ok := netip.AddrFromSlice(ip); ok {
			out = append(out, a.Unmap())
		}
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return out, nil
}
