package resolver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
)

func txtRecords(name string, n, size int) []string {
	var lines []string
	for i := 0; i < n; i++ {
		v := fmt.Sprintf("%03d", i) + strings.Repeat("x", size-3)
		lines = append(lines, name+". 300 IN TXT \""+v+"\"")
	}
	return lines
}

// Queries carry EDNS0 with 4096 bytes, so that a 2 KB answer (a domain's
// TXT records) comes over UDP at once; past 4096 bytes the truncated
// answer is asked again over TCP and arrives whole.
func TestEDNS0AndTCPRetryWhenTruncated(t *testing.T) {
	srv := dnstest.Start(t)
	srv.Add(t, txtRecords("medium.test", 10, 200)...) // about 2.3 KB
	srv.Add(t, txtRecords("large.test", 40, 200)...)  // about 9 KB
	c := resolver.New(srv.Addr, 2*time.Second)

	txt, err := c.TXT(t.Context(), "medium.test")
	if err != nil || len(txt) != 10 {
		t.Fatalf("medium: %d records, %v", len(txt), err)
	}
	if srv.UDPSize() != 4096 {
		t.Fatalf("EDNS0 UDP size %d, want 4096", srv.UDPSize())
	}
	if n := srv.TCPQueries(); n != 0 {
		t.Fatalf("%d TCP queries for an answer that fits 4096 bytes", n)
	}

	txt, err = c.TXT(t.Context(), "large.test")
	if err != nil || len(txt) != 40 {
		t.Fatalf("large: %d records, %v", len(txt), err)
	}
	if n := srv.TCPQueries(); n != 1 {
		t.Fatalf("%d TCP queries, want 1 retry of the truncated answer", n)
	}
}
