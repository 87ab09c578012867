package verify

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// queriesPerDomain is what one uncached verification asks: MX, A/AAAA of
// the domain, A/AAAA of www, NS (IPs counts once).
const queriesPerDomain = 4

func TestCacheExpiresWithInjectedClock(t *testing.T) {
	f := newFixture(t, Options{CacheTTL: time.Minute})
	f.mailDomain(t, "good.example")
	ctx := context.Background()

	f.v.Verify(ctx, "a@good.example")
	f.v.Verify(ctx, "b@good.example")
	if n := f.dns.calls.Load(); n != queriesPerDomain {
		t.Fatalf("after two verifications: %d queries, want %d", n, queriesPerDomain)
	}
	f.clock.Advance(59 * time.Second)
	f.v.Verify(ctx, "c@good.example")
	if n := f.dns.calls.Load(); n != queriesPerDomain {
		t.Fatalf("within the TTL: %d queries, want %d", n, queriesPerDomain)
	}
	f.clock.Advance(time.Second)
	f.v.Verify(ctx, "d@good.example")
	if n := f.dns.calls.Load(); n != 2*queriesPerDomain {
		t.Fatalf("after the TTL: %d queries, want %d", n, 2*queriesPerDomain)
	}
}

func TestCacheSeesChangesAfterTTL(t *testing.T) {
	f := newFixture(t, Options{CacheTTL: time.Minute})
	f.mailDomain(t, "moving.example")
	ctx := context.Background()
	if r := f.v.Verify(ctx, "a@moving.example"); !r.HasMxRecords {
		t.Fatalf("got %+v", r)
	}
	f.srv.Remove("moving.example", dns.TypeMX)
	if r := f.v.Verify(ctx, "a@moving.example"); !r.HasMxRecords {
		t.Fatal("cached answer not used within the TTL")
	}
	f.clock.Advance(2 * time.Minute)
	if r := f.v.Verify(ctx, "a@moving.example"); r.HasMxRecords {
		t.Fatal("stale answer used after the TTL")
	}
}

func TestTemporaryFailureIsNotCached(t *testing.T) {
	f := newFixture(t, Options{})
	f.mailDomain(t, "flaky.example")
	f.srv.SetRcode("flaky.example", dns.RcodeServerFailure)
	ctx := context.Background()

	r := f.v.Verify(ctx, "a@flaky.example")
	if r.Valid || r.DomainExists || !hasReason(r, "DNS lookup failed temporarily") || hasReason(r, "does not exist") {
		t.Fatalf("during SERVFAIL: %+v", r)
	}
	f.srv.SetRcode("flaky.example", dns.RcodeSuccess)
	r = f.v.Verify(ctx, "a@flaky.example")
	if !r.Valid || !r.DomainExists || !slices.Equal(r.Reasons, []string{ValidReason}) {
		t.Fatalf("after recovery: %+v", r)
	}
	if n := f.dns.calls.Load(); n != 2*queriesPerDomain {
		t.Errorf("%d queries, want %d: the failure must not be cached", n, 2*queriesPerDomain)
	}
}

func TestCacheIsBounded(t *testing.T) {
	f := newFixture(t, Options{CacheSize: 2})
	ctx := context.Background()
	for _, d := range []string{"one.example", "two.example", "three.example"} {
		f.mailDomain(t, d)
		f.v.Verify(ctx, "a@"+d)
	}
	if n := f.v.cache.len(); n != 2 {
		t.Fatalf("cache holds %d domains, want 2", n)
	}
	before := f.dns.calls.Load()
	f.v.Verify(ctx, "a@three.example") // most recent: kept
	if f.dns.calls.Load() != before {
		t.Error("most recently used domain was evicted")
	}
	f.v.Verify(ctx, "a@one.example") // least recent: evicted
	if f.dns.calls.Load() != before+queriesPerDomain {
		t.Error("least recently used domain was kept")
	}
}

func TestCacheDisabled(t *testing.T) {
	f := newFixture(t, Options{CacheTTL: -1})
	f.mailDomain(t, "good.example")
	f.v.Verify(context.Background(), "a@good.example")
	f.v.Verify(context.Background(), "a@good.example")
	if n := f.dns.calls.Load(); n != 2*queriesPerDomain {
		t.Errorf("%d queries, want %d with caching disabled", n, 2*queriesPerDomain)
	}
}

// Concurrent verifications of one domain share one set of lookups.
func TestConcurrentVerificationsShareLookups(t *testing.T) {
	f := newFixture(t, Options{})
	f.mailDomain(t, "busy.example")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r := f.v.Verify(context.Background(), "user"+string(rune('a'+i))+"@busy.example")
			if !r.Valid {
				t.Errorf("got %+v", r)
			}
		})
	}
	wg.Wait()
	if n := f.dns.calls.Load(); n != queriesPerDomain {
		t.Errorf("%d queries for 20 concurrent verifications, want %d", n, queriesPerDomain)
	}
}

func TestTimeoutBoundsVerification(t *testing.T) {
	v := New(Options{DNS: blockingDNS{}, Timeout: 50 * time.Millisecond})
	start := time.Now()
	r := v.Verify(context.Background(), "john@good.example")
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Verify took %v with a 50ms timeout", d)
	}
	if r.Valid || r.DomainExists || !hasReason(r, "DNS lookup failed temporarily") || hasReason(r, "does not exist") {
		t.Errorf("got %+v", r)
	}
}

func TestCallerCancellation(t *testing.T) {
	// The lookups go on for Timeout; the caller returns when its own
	// context ends.
	v := New(Options{DNS: blockingDNS{}, Timeout: 2 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := v.Verify(ctx, "john@good.example")
	if d := time.Since(start); d > time.Second {
		t.Errorf("Verify returned after %v, not when its context ended", d)
	}
	if r.Valid || !hasReason(r, "temporarily") {
		t.Errorf("got %+v", r)
	}
}

func hasReason(r Result, s string) bool {
	for _, reason := range r.Reasons {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

func BenchmarkVerifyWarmCache(b *testing.B) {
	f := newFixture(b, Options{})
	f.mailDomain(b, "gmail.com")
	ctx := context.Background()
	f.v.Verify(ctx, "warm@gmail.com")
	b.ReportAllocs()
	for b.Loop() {
		f.v.Verify(ctx, "john.doe+news@gmail.com")
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Options{DNS: blockingDNS{}})
	}
}
