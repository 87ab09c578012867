package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// DNS verification of sender domains: forced checks, the periodic check
// on the fake clock, and the send-path checks built on them.

func TestDomainVerifiesWithTheRSARecordAsReturned(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	r := e.Secret("POST", "/domains", map[string]any{"domain": "example.org"}) // RSA by default
	expectStatus(t, r, 201)
	var d domainJSON
	r.Decode(t, &d)
	dk := d.record(t, "dkim")
	if !strings.Contains(dk.Value, "k=rsa") || len(dk.Value) <= 255 {
		t.Fatalf("want an RSA record longer than one TXT string: %q", dk.Value)
	}
	if d = verifyNow(t, e, d.ID); d.Verified || d.record(t, "dkim").Status != "missing" {
		t.Fatalf("verified before the record was published: %+v", d)
	}
	publish(t, e, dk)
	d = verifyNow(t, e, d.ID)
	if !d.Verified || d.Status != "verified" || d.record(t, "dkim").Status != "verified" {
		t.Fatalf("not verified: %+v", d)
	}
	if d.LastCheckedAt == nil || !d.LastCheckedAt.Equal(webtest.Start) {
		t.Errorf("lastCheckedAt = %v", d.LastCheckedAt)
	}
	if d.record(t, "spf").Status != "missing" || d.record(t, "dmarc").Status != "missing" {
		t.Errorf("SPF and DMARC are not published and must report missing: %+v", d.Records)
	}
	publish(t, e, d.record(t, "spf"))
	publish(t, e, d.record(t, "dmarc"))
	d = verifyNow(t, e, d.ID)
	if d.record(t, "spf").Status != "verified" || d.record(t, "dmarc").Status != "verified" {
		t.Errorf("SPF and DMARC published but not verified: %+v", d.Records)
	}
	key, err := e.App.Senders.SigningKey(context.Background(), e.Project.ID, "EXAMPLE.org")
	if err != nil || !dkim.RecordMatches(dk.Value, key) {
		t.Fatalf("SigningKey = %v, %v; want the key of the published record", key.Selector, err)
	}
}

func TestDomainWrongKeyDoesNotVerify(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	d := addDomain(t, e, "example.org")
	other, err := dkim.Generate(dkim.Ed25519, "x")
	if err != nil {
		t.Fatal(err)
	}
	value, _ := other.RecordValue()
	publish(t, e, dnsRecordJSON{Type: "TXT", Name: d.record(t, "dkim").Name, Value: value})
	if d = verifyNow(t, e, d.ID); d.Verified {
		t.Fatal("verified with another key's record")
	}
}

func TestReturnPathRecordsWithAnInboundHost(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{InboundHost: "inbound.herald.test"})
	d := addDomain(t, e, "example.com")
	mx := d.record(t, "return-path")
	if mx.Type != "MX" || mx.Name != "bounce.example.com" || mx.Value != "10 inbound.herald.test" || mx.Required {
		t.Errorf("return-path record = %+v", mx)
	}
	spf := d.record(t, "return-path-spf")
	if spf.Type != "TXT" || spf.Name != "bounce.example.com" || !strings.HasPrefix(spf.Value, "v=spf1") {
		t.Errorf("return-path SPF record = %+v", spf)
	}
	publish(t, e, mx)
	d = verifyNow(t, e, d.ID)
	if d.record(t, "return-path").Status != "verified" || d.record(t, "return-path-spf").Status != "missing" {
		t.Errorf("statuses = %+v", d.Records)
	}
	if d.Verified {
		t.Error("the return path alone verified the domain")
	}
}

func TestCheckSender(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	err := e.App.Senders.CheckSender(ctx, e.Project.ID, "hello@example.com")
	ae, ok := apierr.AsError(err)
	if !ok || ae.Kind != apierr.KindForbidden || ae.Code != "INTERNAL_SERVER_ERROR" ||
		ae.Details["reason"] != "DOMAIN_NOT_VERIFIED" || ae.Details["domain"] != "example.com" || ae.Suggestion == "" {
		t.Fatalf("CheckSender = %#v", err)
	}
	d := addDomain(t, e, "example.com")
	if err := e.App.Senders.CheckSender(ctx, e.Project.ID, "hello@example.com"); err == nil {
		t.Fatal("a pending domain sends")
	}
	publish(t, e, d.record(t, "dkim"))
	verifyNow(t, e, d.ID)
	for _, from := range []string{"hello@example.com", "Hello@EXAMPLE.com"} {
		if err := e.App.Senders.CheckSender(ctx, e.Project.ID, from); err != nil {
			t.Errorf("CheckSender(%q) = %v", from, err)
		}
	}
	for _, from := range []string{"hello@sub.example.com", "hello@example.com.evil", "not an address"} {
		if err := e.App.Senders.CheckSender(ctx, e.Project.ID, from); err == nil {
			t.Errorf("CheckSender(%q) accepted", from)
		}
	}
	other, _ := e.App.Accounts.CreateProject(ctx, "Other")
	if err := e.App.Senders.CheckSender(ctx, other.ID, "hello@example.com"); err == nil {
		t.Error("another project sends from this project's domain")
	}
	if _, err := e.App.Senders.SigningKey(ctx, other.ID, "example.com"); err == nil {
		t.Error("another project got this project's key")
	}
}

// domainCheckJob reads the periodic check's row: its state and next run.
func domainCheckJob(t *testing.T, e *webtest.Env) (string, time.Time) {
	t.Helper()
	var state string
	var runAt int64
	err := e.DB.Reader().QueryRow(context.Background(),
		`SELECT state, run_at FROM jobs WHERE kind = ?`, senders.JobCheckDomains).Scan(&state, &runAt)
	if err != nil && err.Error() != "sql: no rows in result set" {
		t.Fatal(err)
	}
	return state, storage.FromMillis(runAt)
}

// waitDomainCheckAfter waits until the periodic check is queued to run
// after t0, that is, until the run due at t0 or before has finished.
func waitDomainCheckAfter(t *testing.T, e *webtest.Env, t0 time.Time) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if state, next := domainCheckJob(t, e); state == "queued" && next.After(t0) {
			return
		}
		e.App.Jobs().Wake() // in case the dispatcher went to sleep just before the clock moved
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("the domain check due by %v did not run", t0)
}

// runDomainChecks moves the clock to the next periodic check and waits for
// it to finish.
func runDomainChecks(t *testing.T, e *webtest.Env) {
	t.Helper()
	e.Clock.Advance(senders.DomainCheckInterval)
	waitDomainCheckAfter(t, e, e.Clock.Now())
}

func domainByID(t *testing.T, e *webtest.Env, id string) domainJSON {
	t.Helper()
	for _, d := range listDomains(t, e) {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("domain %s not listed", id)
	return domainJSON{}
}

func TestPeriodicCheckVerifiesAndUnverifiesAfterTwoDefiniteFailures(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	waitDomainCheckAfter(t, e, webtest.Start) // the run at start-up is over
	d := addDomain(t, e, "example.com")
	dk := d.record(t, "dkim")
	publish(t, e, dk)

	runDomainChecks(t, e)
	d = domainByID(t, e, d.ID)
	if !d.Verified || d.LastCheckedAt == nil || !d.LastCheckedAt.Equal(e.Clock.Now().Truncate(time.Millisecond)) {
		t.Fatalf("after the first check: %+v", d)
	}

	e.DNS.Remove(dk.Name, dns.TypeTXT)
	runDomainChecks(t, e)
	if d = domainByID(t, e, d.ID); !d.Verified || d.record(t, "dkim").Status != "missing" {
		t.Fatalf("one definite failure must not un-verify: %+v", d)
	}
	runDomainChecks(t, e)
	if d = domainByID(t, e, d.ID); d.Verified || d.Status != "pending" {
		t.Fatalf("two definite failures must un-verify: %+v", d)
	}

	publish(t, e, dk)
	runDomainChecks(t, e)
	if d = domainByID(t, e, d.ID); !d.Verified {
		t.Fatalf("republished record did not verify again: %+v", d)
	}
}

func TestPeriodicCheckIgnoresServerFailures(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	waitDomainCheckAfter(t, e, webtest.Start)
	d := addVerifiedDomain(t, e, "example.com")
	dk := d.record(t, "dkim")

	e.DNS.SetRcode(dk.Name, dns.RcodeServerFailure)
	for range 3 {
		runDomainChecks(t, e)
	}
	d = domainByID(t, e, d.ID)
	if !d.Verified || d.record(t, "dkim").Status != "verified" {
		t.Fatalf("SERVFAIL changed the state: %+v", d)
	}
	if !d.LastCheckedAt.Equal(e.Clock.Now().Truncate(time.Millisecond)) {
		t.Errorf("lastCheckedAt = %v, want %v", d.LastCheckedAt, e.Clock.Now())
	}

	// A SERVFAIL between two definite failures neither counts nor resets.
	e.DNS.SetRcode(dk.Name, dns.RcodeSuccess)
	e.DNS.Remove(dk.Name, dns.TypeTXT)
	runDomainChecks(t, e)
	e.DNS.SetRcode(dk.Name, dns.RcodeServerFailure)
	runDomainChecks(t, e)
	if d = domainByID(t, e, d.ID); !d.Verified {
		t.Fatalf("un-verified after one definite failure and a SERVFAIL: %+v", d)
	}
	e.DNS.SetRcode(dk.Name, dns.RcodeSuccess)
	runDomainChecks(t, e)
	if d = domainByID(t, e, d.ID); d.Verified {
		t.Fatalf("still verified after two definite failures: %+v", d)
	}
}
