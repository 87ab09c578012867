package web_test

import (
	"testing"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/web/webtest"
)

// The sender domains a send finds verified are cached: a domain that the
// periodic check un-verifies, or that is deleted, must still be refused
// by the very next send, and one verified again must send again.
func TestSendFollowsItsDomainAtOnceDespiteTheCache(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	e.RouteMail("example.net")
	waitDomainCheckAfter(t, e, webtest.Start)
	d := addVerifiedDomain(t, e, "example.com")
	send := func() webtest.Response {
		return e.Secret("POST", "/v1/send", map[string]any{"to": "a@example.net", "from": "news@example.com",
			"subject": "s", "body": "b"})
	}
	expectStatus(t, send(), 200)
	expectStatus(t, send(), 200) // from the cache

	dk := d.record(t, "dkim")
	e.DNS.Remove(dk.Name, dns.TypeTXT)
	runDomainChecks(t, e)
	runDomainChecks(t, e) // two definite failures un-verify
	if domainByID(t, e, d.ID).Verified {
		t.Fatal("still verified")
	}
	expectError(t, send(), 403, "INTERNAL_SERVER_ERROR")

	publish(t, e, dk)
	runDomainChecks(t, e)
	expectStatus(t, send(), 200)

	expectStatus(t, e.Secret("DELETE", "/domains/"+d.ID, nil), 204)
	expectError(t, send(), 403, "INTERNAL_SERVER_ERROR")
}

// A project's billing caps are cached too: a cap set after sends that
// found none holds from the next send on, and so does its removal.
func TestSendFollowsItsBillingCapAtOnceDespiteTheCache(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	verifiedDomain(t, e, "herald.test")
	send := func() webtest.Response {
		return e.Secret("POST", "/v1/send", map[string]any{"to": "a@example.net", "from": "news@herald.test",
			"subject": "s", "body": "b"})
	}
	expectStatus(t, send(), 200)
	expectStatus(t, send(), 200) // no cap, from the cache
	limits := func(transactional any) map[string]any {
		return map[string]any{"workflows": nil, "campaigns": nil, "transactional": transactional, "inbound": nil}
	}
	expectStatus(t, putLimits(owner, e.Project.ID, limits(2)), 200)
	expectError(t, send(), 429, "BILLING_LIMIT_EXCEEDED")
	expectStatus(t, putLimits(owner, e.Project.ID, limits(nil)), 200)
	expectStatus(t, send(), 200)
}
