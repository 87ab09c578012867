package verify

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
)

// countingDNS delegates to a real client and counts the queries made
// through it, so that tests can see what the cache saved.
type countingDNS struct {
	next  DNS
	calls atomic.Int64
}

func (c *countingDNS) MX(ctx context.Context, d string) ([]resolver.MX, error) {
	c.calls.Add(1)
	return c.next.MX(ctx, d)
}

func (c *countingDNS) IPs(ctx context.Context, h string) ([]netip.Addr, error) {
	c.calls.Add(1)
	return c.next.IPs(ctx, h)
}

func (c *countingDNS) NS(ctx context.Context, d string) ([]string, error) {
	c.calls.Add(1)
	return c.next.NS(ctx, d)
}

// fakeClock is a settable clock for cache expiry.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	srv   *dnstest.Server
	dns   *countingDNS
	clock *fakeClock
	v     *Verifier
}

// newFixture starts a DNS server on loopback and a Verifier that asks it
// through a counting wrapper, on a fake clock.
func newFixture(t testing.TB, o Options) *fixture {
	t.Helper()
	srv := dnstest.Start(t)
	f := &fixture{
		srv:   srv,
		dns:   &countingDNS{next: resolver.New(srv.Addr, time.Second)},
		clock: newFakeClock(),
	}
	o.DNS = f.dns
	o.Now = f.clock.Now
	f.v = New(o)
	return f
}

// mailDomain adds the records of an ordinary domain: MX, A, NS.
func (f *fixture) mailDomain(t testing.TB, domain string) {
	t.Helper()
	f.srv.Add(t,
		domain+". 300 IN MX 10 mx."+domain+".",
		domain+". 300 IN A 192.0.2.10",
		domain+". 300 IN NS ns1."+domain+".",
	)
}

// blockingDNS never answers before its context ends, like a resolver that
// is down.
type blockingDNS struct{}

func (blockingDNS) MX(ctx context.Context, _ string) ([]resolver.MX, error) {
	<-ctx.Done()
	return nil, &resolver.TemporaryError{Name: "mx", Err: ctx.Err()}
}

func (blockingDNS) IPs(ctx context.Context, _ string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, &resolver.TemporaryError{Name: "ip", Err: ctx.Err()}
}

func (blockingDNS) NS(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, &resolver.TemporaryError{Name: "ns", Err: ctx.Err()}
}
