package web_test

import (
	"sync"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// ownEnvProject makes a user the OWNER of the Env's project, so that the
// key helpers (e.Secret) and the account endpoints meet on one project.
func ownEnvProject(t *testing.T, e *webtest.Env, email string) *browser {
	t.Helper()
	b := signupUser(t, e, email)
	if _, err := e.App.Accounts.AddMemberByEmail(t.Context(), e.Project.ID, email, "OWNER"); err != nil {
		t.Fatal(err)
	}
	return b
}

type limitJSON struct {
	Limit      *float64 `json:"limit"`
	Usage      float64  `json:"usage"`
	Percentage float64  `json:"percentage"`
	IsWarning  bool     `json:"isWarning"`
	IsBlocked  bool     `json:"isBlocked"`
}

func getLimits(t *testing.T, b *browser, projectID string) map[string]limitJSON {
	t.Helper()
	r := b.do("GET", "/users/@me/projects/"+projectID+"/billing-limits", nil)
	expectStatus(t, r, 200)
	var m map[string]limitJSON
	r.Decode(t, &m)
	if len(m) != 4 {
		t.Fatalf("limits %s", r.Body)
	}
	return m
}

func putLimits(b *browser, projectID string, body any) (r webtestResponse) {
	return b.write("PUT", "/users/@me/projects/"+projectID+"/billing-limits", body)
}

type webtestResponse = webtest.Response

func TestBillingLimitsShapeAndValidation(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	id := e.Project.ID
	for k, l := range getLimits(t, owner, id) {
		if l.Limit != nil || l.Usage != 0 || l.Percentage != 0 || l.IsWarning || l.IsBlocked {
			t.Errorf("new project's %s: %+v", k, l)
		}
	}
	all := map[string]any{"workflows": nil, "campaigns": 5, "transactional": 0, "inbound": 1000}
	for _, tc := range []struct {
		key string
		val any
	}{{"workflows", -1}, {"campaigns", 1.5}, {"transactional", "5"}, {"inbound", true}} {
		body := map[string]any{}
		for k, v := range all {
			body[k] = v
		}
		body[tc.key] = tc.val
		expectField(t, putLimits(owner, id, body), tc.key, "invalid_type")
	}
	for _, missing := range []string{"workflows", "campaigns", "transactional", "inbound"} {
		body := map[string]any{}
		for k, v := range all {
			if k != missing {
				body[k] = v
			}
		}
		expectField(t, putLimits(owner, id, body), missing, "invalid_type")
	}
	r := putLimits(owner, id, all)
	expectStatus(t, r, 200)
	m := getLimits(t, owner, id)
	if m["workflows"].Limit != nil || *m["campaigns"].Limit != 5 || *m["inbound"].Limit != 1000 {
		t.Errorf("limits %+v", m)
	}
	// A cap of 0 is 100% and blocked even unused.
	if tr := m["transactional"]; *tr.Limit != 0 || tr.Percentage != 100 || !tr.IsWarning || !tr.IsBlocked {
		t.Errorf("zero cap %+v", tr)
	}

	// A MEMBER reads, may not write.
	member := signupUser(t, e, "member@example.com")
	owner.addMember(id, member.email, "MEMBER")
	getLimits(t, member, id)
	expectError(t, putLimits(member, id, all), 403, "FORBIDDEN")
}

// The cap holds under concurrency: 20 sends at once against room for 10
// send exactly 10.
func TestBillingLimitIsAtomicOnSend(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	verifiedDomain(t, e, "herald.test")
	id := e.Project.ID
	expectStatus(t, putLimits(owner, id, map[string]any{"workflows": nil, "campaigns": nil, "transactional": 10, "inbound": nil}), 200)

	statuses := make([]webtest.Response, 20)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = e.Secret("POST", "/v1/send", map[string]any{"to": "r" + itoa(i%26) + itoa(i/26) + "@example.com",
				"from": "news@herald.test", "subject": "s", "body": "b"})
		})
	}
	wg.Wait()
	ok, over := 0, 0
	for _, r := range statuses {
		switch r.Status {
		case 200:
			ok++
		case 429:
			expectError(t, r, 429, "BILLING_LIMIT_EXCEEDED")
			over++
		default:
			t.Errorf("status %d: %s", r.Status, r.Body)
		}
	}
	if ok != 10 || over != 10 {
		t.Fatalf("%d sent, %d refused; want 10 and 10", ok, over)
	}
	tr := getLimits(t, owner, id)["transactional"]
	if tr.Usage != 10 || tr.Percentage != 100 || !tr.IsWarning || !tr.IsBlocked {
		t.Errorf("after: %+v", tr)
	}

	// Several recipients count each: usage + recipients > cap refuses the
	// whole send, nothing is sent.
	expectStatus(t, putLimits(owner, id, map[string]any{"workflows": nil, "campaigns": nil, "transactional": 12, "inbound": nil}), 200)
	r := e.Secret("POST", "/v1/send", map[string]any{"to": []string{"a@example.com", "b@example.com", "c@example.com"},
		"from": "news@herald.test", "subject": "s", "body": "b"})
	expectError(t, r, 429, "BILLING_LIMIT_EXCEEDED")
	expectStatus(t, e.Secret("POST", "/v1/send", map[string]any{"to": []string{"a@example.com", "b@example.com"},
		"from": "news@herald.test", "subject": "s", "body": "b"}), 200)
	tr = getLimits(t, owner, id)["transactional"]
	if tr.Usage != 12 || !tr.IsBlocked {
		t.Errorf("after the multi-recipient sends: %+v", tr)
	}
	expectStatus(t, putLimits(owner, id, map[string]any{"workflows": nil, "campaigns": nil, "transactional": 15, "inbound": nil}), 200)
	if tr = getLimits(t, owner, id)["transactional"]; tr.Percentage != 80 || !tr.IsWarning || tr.IsBlocked {
		t.Errorf("12 of 15: %+v", tr)
	}
	expectStatus(t, putLimits(owner, id, map[string]any{"workflows": nil, "campaigns": nil, "transactional": 36, "inbound": nil}), 200)
	if tr = getLimits(t, owner, id)["transactional"]; tr.Percentage != 33.33 || tr.IsWarning {
		t.Errorf("12 of 36: %+v", tr)
	}

	r = owner.do("GET", "/users/@me/projects/"+id+"/billing-consumption", nil)
	expectStatus(t, r, 200)
	var c map[string]any
	r.Decode(t, &c)
	if c["month"] != "2026-01" || c["transactional"] != float64(12) || c["campaigns"] != float64(0) ||
		c["workflows"] != float64(0) || c["inbound"] != float64(0) || c["total"] != float64(12) || len(c) != 6 {
		t.Errorf("consumption %s", r.Body)
	}
}

func TestBillingLimitOnCampaigns(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	verifiedDomain(t, e, "herald.test")
	for _, c := range []string{"a@example.com", "b@example.com"} {
		createContact(t, e, map[string]any{"email": c, "subscribed": true})
	}
	expectStatus(t, putLimits(owner, e.Project.ID, map[string]any{"workflows": nil, "campaigns": 1, "transactional": nil, "inbound": nil}), 200)
	camp := createCampaign(t, e, campaignBody(map[string]any{"audienceType": "ALL"}))
	r := e.Secret("POST", "/campaigns/"+camp.ID+"/send", nil)
	expectError(t, r, 403, "BILLING_LIMIT_EXCEEDED")
	r = e.Secret("GET", "/campaigns/"+camp.ID, nil)
	if r.JSON()["status"] != "DRAFT" {
		t.Errorf("campaign after a refused send: %s", r.Body)
	}
	// A test send counts nowhere.
	expectStatus(t, e.Secret("POST", "/campaigns/"+camp.ID+"/test", map[string]any{"email": "t@example.com"}), 200)
	r = owner.do("GET", "/users/@me/projects/"+e.Project.ID+"/billing-consumption", nil)
	if r.JSON()["total"] != float64(0) {
		t.Errorf("a test send counted: %s", r.Body)
	}
	expectStatus(t, putLimits(owner, e.Project.ID, map[string]any{"workflows": nil, "campaigns": 2, "transactional": nil, "inbound": nil}), 200)
	expectStatus(t, e.Secret("POST", "/campaigns/"+camp.ID+"/send", nil), 200)
}

func TestBillingDisabledEndpoints(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	id := e.Project.ID
	for _, c := range []struct{ method, path string }{
		{"POST", "/users/@me/projects/" + id + "/checkout"},
		{"POST", "/users/@me/projects/" + id + "/billing-portal"},
		{"GET", "/users/@me/projects/" + id + "/billing-invoices"},
		{"POST", "/webhooks/incoming/payments"},
	} {
		expectError(t, e.Do(c.method, c.path, "", nil), 404, "BILLING_DISABLED")
		expectError(t, owner.write(c.method, c.path, nil), 404, "BILLING_DISABLED")
		expectError(t, e.Do(c.method, c.path, e.Project.Secret, map[string]any{}), 404, "BILLING_DISABLED")
	}
}
