package resolver_test

import (
	"context"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
)

func TestLookups(t *testing.T) {
	srv := dnstest.Start(t)
	srv.Add(t,
		"example.com. 300 IN MX 20 mx2.example.com.",
		"example.com. 300 IN MX 10 MX1.example.com.",
		"example.com. 300 IN TXT \"v=spf1 \" \"-all\"",
		"example.com. 300 IN NS ns1.example.com.",
		"mx1.example.com. 300 IN A 127.0.0.1",
		"mx1.example.com. 300 IN AAAA ::1",
		"nullmx.test. 300 IN MX 0 .",
	)
	c := resolver.New(srv.Addr, time.Second)
	ctx := context.Background()

	mx, err := c.MX(ctx, "example.com")
	if err != nil || len(mx) != 2 || mx[0].Host != "mx1.example.com" || mx[1].Pref != 20 {
		t.Fatalf("MX = %v, %v", mx, err)
	}
	txt, err := c.TXT(ctx, "example.com")
	if err != nil || len(txt) != 1 || txt[0] != "v=spf1 -all" {
		t.Fatalf("TXT = %q, %v", txt, err)
	}
	ns, err := c.NS(ctx, "example.com")
	if err != nil || ns[0] != "ns1.example.com" {
		t.Fatalf("NS = %v, %v", ns, err)
	}
	ips, err := c.IPs(ctx, "mx1.example.com")
	if err != nil || len(ips) != 2 || ips[0].String() != "127.0.0.1" || ips[1].String() != "::1" {
		t.Fatalf("IPs = %v, %v", ips, err)
	}
	null, err := c.MX(ctx, "nullmx.test")
	if err != nil || len(null) != 1 || null[0].Host != "." {
		t.Fatalf("null MX = %v, %v", null, err)
	}
}

func TestNegativeAndTemporaryAnswers(t *testing.T) {
	srv := dnstest.Start(t)
	srv.Add(t, "onlytxt.test. 300 IN TXT \"x\"")
	srv.SetRcode("broken.test", dns.RcodeServerFailure)
	c := resolver.New(srv.Addr, time.Second)
	ctx := context.Background()

	if _, err := c.MX(ctx, "missing.test"); !resolver.IsNotFound(err) {
		t.Errorf("NXDOMAIN: got %v", err)
	}
	if _, err := c.MX(ctx, "onlytxt.test"); !resolver.IsNotFound(err) {
		t.Errorf("NODATA: got %v", err)
	}
	if _, err := c.MX(ctx, "broken.test"); !resolver.IsTemporary(err) || resolver.IsNotFound(err) {
		t.Errorf("SERVFAIL: got %v", err)
	}
	dead := resolver.New("127.0.0.1:1", 200*time.Millisecond)
	if _, err := dead.TXT(ctx, "example.com"); !resolver.IsTemporary(err) {
		t.Errorf("unreachable server: got %v", err)
	}
}
