package verify

import (
	"context"
	"net/netip"
	"strings"
	"sync"

	"github.com/heraldmail/herald/resolver"
)

// DNS is what the verifier needs from a resolver; *resolver.Client
// satisfies it. Errors must follow the resolver's convention: a definite
// negative answer satisfies resolver.IsNotFound; anything else is taken as
// a temporary failure.
type DNS interface {
	MX(ctx context.Context, domain string) ([]resolver.MX, error)
	IPs(ctx context.Context, host string) ([]netip.Addr, error)
	NS(ctx context.Context, domain string) ([]string, error)
}

// answer is the outcome of one lookup. The zero value is unknown, so a
// lookup that never ran proves nothing.
type answer uint8

const (
	unknown answer = iota // failed without a definite answer
	absent                // NXDOMAIN or no record of the type
	present               // at least one record
)

// facts are the DNS answers about one domain: what the cache stores.
type facts struct {
	mx     answer // MX RRset, null MX included
	nullMX bool   // the domain publishes only the null MX "."
	ip     answer // A/AAAA of the domain itself
	www    answer // A/AAAA of www.<domain>
	ns     answer
}

func (f facts) hasMX() bool      { return f.mx == present && !f.nullMX }
func (f facts) hasWebsite() bool { return f.ip == present || f.www == present }

// exists: any positive answer shows the name is in the DNS; www is counted
// because www.<domain> resolving implies <domain> exists too.
func (f facts) exists() bool {
	return f.mx == present || f.ip == present || f.ns == present || f.www == present
}

// acceptsMail: MX hosts, or no MX at all and an address (implicit MX). An
// unknown MX answer confirms neither.
func (f facts) acceptsMail() bool {
	return f.hasMX() || f.mx == absent && f.ip == present
}

// complete reports that every lookup gave a definite answer; only complete
// facts are cached.
func (f facts) complete() bool {
	return f.mx != unknown && f.ip != unknown && f.www != unknown && f.ns != unknown
}

// lookupFacts asks the four questions about domain concurrently. Each
// goroutine writes its own field, so no lock is needed.
func lookupFacts(ctx context.Context, dns DNS, domain string) facts {
	var f facts
	var wg sync.WaitGroup
	wg.Go(func() { f.mx, f.nullMX = classifyMX(dns.MX(ctx, domain)) })
	wg.Go(func() { f.ip = classifyAddrs(dns.IPs(ctx, domain)) })
	wg.Go(func() { f.ns = classifyNames(dns.NS(ctx, domain)) })
	if www := "www." + domain; len(www) <= maxDomain {
		wg.Go(func() { f.www = classifyAddrs(dns.IPs(ctx, www)) })
	} else {
		f.www = absent // such a name cannot exist
	}
	wg.Wait()
	return f
}

func classify(n int, err error) answer {
	switch {
	case err == nil && n > 0:
		return present
	case err == nil || resolver.IsNotFound(err):
		return absent
	default:
		return unknown
	}
}

func classifyAddrs(ips []netip.Addr, err error) answer { return classify(len(ips), err) }

func classifyNames(names []string, err error) answer { return classify(len(names), err) }

// classifyMX treats "." hosts as the null MX of RFC 7505. A null MX mixed
// with real hosts is a misconfiguration; the real hosts win.
func classifyMX(mxs []resolver.MX, err error) (answer, bool) {
	a := classify(len(mxs), err)
	if a != present {
		return a, false
	}
	for _, mx := range mxs {
		if strings.TrimSuffix(mx.Host, ".") != "" {
			return present, false
		}
	}
	return present, true
}
