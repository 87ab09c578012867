package smtpout

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/resolver"
)

// target is one host to try for a domain.
type target struct {
	host     string
	port     int
	relay    bool // the configured smarthost
	implicit bool // the domain itself, which has no MX records (RFC 5321 §5.1)
}

// key names the host for the idle pool and the TLS memory. Sessions are
// shared by every domain served by the same host.
func (t target) key() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// route lists the hosts to try in order, or returns the verdict for every
// recipient when DNS alone decides it.
func (s *Sender) route(ctx context.Context, domain string) ([]target, *Result) {
	if s.cfg.Relay != "" {
		host, port, err := splitHostPort(s.cfg.Relay)
		if err != nil {
			r := temporary("4.3.5", err.Error()) // the operator can fix it; the mail waits
			return nil, &r
		}
		return []target{{host: host, port: port, relay: true}}, nil
	}
	mxs, err := s.lookupMX(ctx, domain)
	switch {
	case resolver.IsNotFound(err):
		return []target{{host: domain, port: s.cfg.Port, implicit: true}}, nil
	case err != nil:
		r := temporary("4.4.3", "MX lookup for "+domain+" failed: "+err.Error())
		return nil, &r
	}
	var out []target
	seen := map[string]bool{}
	for _, mx := range mxs {
		h := strings.TrimSuffix(strings.ToLower(mx.Host), ".")
		if h == "" || seen[h] { // "" is the null MX "."
			continue
		}
		seen[h] = true
		out = append(out, target{host: h, port: s.cfg.Port})
	}
	if len(out) == 0 {
		r := permanent("5.1.10", domain+" publishes a null MX (RFC 7505): it accepts no mail")
		return nil, &r
	}
	return out, nil
}

// mxAnswer is a definite MX answer: the records, or that there are none.
type mxAnswer struct {
	mxs      []resolver.MX
	notFound bool
}

// lookupMX asks for domain's MX records, reusing a definite answer for
// MXCacheTTL. Without this, a campaign to one large provider costs one DNS
// query per message, which the resolver may rate-limit and which takes
// longer than the SMTP transaction on a reused connection. The Resolver
// does not report TTLs, so the cache time is a fixed value shorter than
// nearly every published MX TTL. Temporary failures are not cached.
func (s *Sender) lookupMX(ctx context.Context, domain string) ([]resolver.MX, error) {
	now := s.cfg.Now()
	if a, ok := s.mxCache.get(domain, now); ok {
		if a.notFound {
			return nil, resolver.ErrNotFound
		}
		return a.mxs, nil
	}
	mxs, err := s.res.MX(ctx, domain)
	switch {
	case err == nil:
		s.mxCache.put(domain, mxAnswer{mxs: mxs}, now)
	case resolver.IsNotFound(err):
		s.mxCache.put(domain, mxAnswer{notFound: true}, now)
	}
	return mxs, err
}

// addrs lists the "ip:port" addresses of t. A relay is dialed by name, so
// that it may live in /etc/hosts or a private zone the DNS resolver
// configured for delivery does not see.
func (s *Sender) addrs(ctx context.Context, t target) ([]string, error) {
	if t.relay {
		return []string{t.key()}, nil
	}
	ips, err := s.res.IPs(ctx, t.host)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, net.JoinHostPort(ip.String(), strconv.Itoa(t.port)))
	}
	return out, nil
}

// addrsFailed handles a failed address lookup of t. A domain with neither MX
// nor address records cannot receive mail; an MX host without an address,
// or a lookup that failed, leaves its recipients for the next host.
func (s *Sender) addrsFailed(d *delivery, t target, err error) {
	switch {
	case t.implicit && resolver.IsNotFound(err):
		r := permanent("5.1.2", d.domain+" has neither MX nor address records")
		d.settleAll(d.pending(), r)
	case resolver.IsNotFound(err):
		d.hostFailed(t.host, &localError{enh: "4.4.4", msg: "MX host " + t.host + " has no address", err: err})
	default:
		d.hostFailed(t.host, &localError{enh: "4.4.3", msg: "address lookup for " + t.host + " failed", err: err})
	}
	s.log.Debug("smtpout: address lookup failed", "domain", d.domain, "mx", t.host, "err", err)
}
