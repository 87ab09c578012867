package web_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// Each record says verified, missing or wrong_value with what was found,
// and the DKIM value comes also in strings of at most 255 characters.
func TestDomainRecordsSayWhatWasFound(t *testing.T) {
	e := webtest.New(t, webtest.Options{InboundHost: "inbound.herald.test"})
	r := e.Secret("POST", "/domains", map[string]any{"domain": "example.org"}) // RSA: a value over 255
	expectStatus(t, r, 201)
	var d domainJSON
	r.Decode(t, &d)
	dk := d.record(t, "dkim")
	if strings.Join(dk.ValueChunks, "") != dk.Value || len(dk.ValueChunks) < 2 {
		t.Fatalf("valueChunks %q do not make the value", dk.ValueChunks)
	}
	for _, c := range dk.ValueChunks {
		if len(c) > 255 {
			t.Fatalf("chunk of %d characters", len(c))
		}
	}
	for _, rec := range d.Records {
		if rec.Status != "missing" || rec.Found != nil {
			t.Errorf("%s before any check: %q found %v", rec.Purpose, rec.Status, rec.Found)
		}
	}

	// DKIM with another key, SPF right, DMARC absent, the bounce MX elsewhere.
	e.DNS.Add(t, dk.Name+`. 300 IN TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"`,
		`example.org. 300 IN TXT "google-site-verification=abc"`,
		`example.org. 300 IN TXT "v=spf1 a mx ~all"`,
		"bounce.example.org. 300 IN MX 10 mx.other.test.")
	d = verifyNow(t, e, d.ID)
	want := map[string][2]string{
		"dkim":        {"wrong_value", "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"},
		"spf":         {"verified", "v=spf1 a mx ~all"},
		"dmarc":       {"missing", ""},
		"return-path": {"wrong_value", "10 mx.other.test"},
	}
	for purpose, w := range want {
		rec := d.record(t, purpose)
		found := ""
		if rec.Found != nil {
			found = *rec.Found
		}
		if rec.Status != w[0] || found != w[1] || (w[1] == "" && rec.Found != nil) {
			t.Errorf("%s: status %q found %v, want %q %q", purpose, rec.Status, rec.Found, w[0], w[1])
		}
	}
	if d.Verified {
		t.Fatal("verified with the wrong DKIM key")
	}
	// The right value verifies; the domain object shows the same.
	e.DNS.Remove(dk.Name, 16)
	publish(t, e, dk)
	d = verifyNow(t, e, d.ID)
	if rec := d.record(t, "dkim"); rec.Status != "verified" || rec.Found == nil || *rec.Found != dk.Value || !d.Verified {
		t.Fatalf("after publishing: %+v", rec)
	}
	got := domainByID(t, e, d.ID)
	if rec := got.record(t, "dkim"); rec.Status != "verified" || rec.Found == nil || len(rec.ValueChunks) < 2 {
		t.Fatalf("domain object: %+v", rec)
	}
}
