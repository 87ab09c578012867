package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/web/webtest"
)

// domainJSON is a sender domain as the API returns it.
type domainJSON struct {
	ID            string          `json:"id"`
	Domain        string          `json:"domain"`
	Verified      bool            `json:"verified"`
	Status        string          `json:"status"`
	Records       []dnsRecordJSON `json:"records"`
	ProjectID     string          `json:"projectId"`
	LastCheckedAt *time.Time      `json:"lastCheckedAt"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

type dnsRecordJSON struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Purpose  string `json:"purpose"`
	Required bool   `json:"required"`
	Status   string `json:"status"`
	// Found is the value the last check saw; ValueChunks the DKIM value
	// in strings of at most 255 characters.
	Found       *string  `json:"found"`
	ValueChunks []string `json:"valueChunks"`
}

func (d domainJSON) record(t *testing.T, purpose string) dnsRecordJSON {
	t.Helper()
	for _, r := range d.Records {
		if r.Purpose == purpose {
			return r
		}
	}
	t.Fatalf("domain %s has no %s record: %+v", d.Domain, purpose, d.Records)
	return dnsRecordJSON{}
}

// addDomain adds a sender domain with an Ed25519 key (RSA keys take long
// to generate under the race detector; tests that need RSA say so).
func addDomain(t *testing.T, e *webtest.Env, name string) domainJSON {
	t.Helper()
	r := e.Secret("POST", "/domains", map[string]any{"domain": name, "algorithm": "ed25519"})
	expectStatus(t, r, 201)
	var d domainJSON
	r.Decode(t, &d)
	return d
}

// publish adds a record to the test DNS server exactly as the API gave it,
// splitting long TXT values into 255-byte strings as a zone file must.
func publish(t *testing.T, e *webtest.Env, rec dnsRecordJSON) {
	t.Helper()
	value := rec.Value
	if rec.Type == "TXT" {
		parts := dkim.TXTStrings(rec.Value)
		for i := range parts {
			parts[i] = `"` + parts[i] + `"`
		}
		value = strings.Join(parts, " ")
	}
	e.DNS.Add(t, fmt.Sprintf("%s. 300 IN %s %s", rec.Name, rec.Type, value))
}

// verifyNow forces a check and returns the domain.
func verifyNow(t *testing.T, e *webtest.Env, id string) domainJSON {
	t.Helper()
	r := e.Secret("GET", "/domains/"+id+"/verify", nil)
	expectStatus(t, r, 200)
	var d domainJSON
	r.Decode(t, &d)
	return d
}

// addVerifiedDomain adds a domain, publishes its DKIM record and verifies it.
func addVerifiedDomain(t *testing.T, e *webtest.Env, name string) domainJSON {
	t.Helper()
	d := addDomain(t, e, name)
	publish(t, e, d.record(t, "dkim"))
	if d = verifyNow(t, e, d.ID); !d.Verified {
		t.Fatalf("domain %s not verified: %+v", name, d)
	}
	return d
}

func listDomains(t *testing.T, e *webtest.Env) []domainJSON {
	t.Helper()
	r := e.Secret("GET", "/domains/project/"+e.Project.ID, nil)
	expectStatus(t, r, 200)
	var out []domainJSON
	r.Decode(t, &out)
	return out
}

func TestAddDomainReturnsTheRecordsToPublish(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	r := e.Secret("POST", "/domains", map[string]any{"domain": "  Mail.Example.COM. ", "algorithm": "ed25519"})
	expectStatus(t, r, 201)
	var d domainJSON
	r.Decode(t, &d)
	if d.ID == "" || d.Domain != "mail.example.com" || d.Verified || d.Status != "pending" ||
		d.ProjectID != e.Project.ID || d.LastCheckedAt != nil || !d.CreatedAt.Equal(webtest.Start) {
		t.Fatalf("domain = %s", r.Body)
	}
	if len(d.Records) != 3 {
		t.Fatalf("want DKIM, SPF and DMARC records without an inbound host: %+v", d.Records)
	}
	dk := d.record(t, "dkim")
	if dk.Type != "TXT" || dk.Name != "herald202601._domainkey.mail.example.com" || !dk.Required ||
		dk.Status != "missing" || dk.Found != nil || !strings.HasPrefix(dk.Value, "v=DKIM1; k=ed25519; p=") {
		t.Errorf("dkim record = %+v", dk)
	}
	spf := d.record(t, "spf")
	if spf.Type != "TXT" || spf.Name != "mail.example.com" || spf.Required || !strings.HasPrefix(spf.Value, "v=spf1 ") {
		t.Errorf("spf record = %+v", spf)
	}
	dmarc := d.record(t, "dmarc")
	if dmarc.Type != "TXT" || dmarc.Name != "_dmarc.mail.example.com" || dmarc.Required || !strings.HasPrefix(dmarc.Value, "v=DMARC1") {
		t.Errorf("dmarc record = %+v", dmarc)
	}
	if strings.Contains(string(r.Body), "PRIVATE") {
		t.Errorf("the private key leaked: %s", r.Body)
	}
}

func TestAddDomainRejectsBadNames(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	for _, name := range []string{
		"", "   ", "localhost", "exa mple.com", "-bad.example.com", "bad-.example.com", "a..b.com", ".example.com",
		strings.Repeat("a", 64) + ".com", "example.123", "under_score.example.com", "http://example.com",
		"user@example.com", "example.com/path", "[192.0.2.1]", strings.Repeat("abcdefghi.", 26) + "com",
	} {
		r := e.Secret("POST", "/domains", map[string]any{"domain": name, "algorithm": "ed25519"})
		if r.Status != 422 {
			t.Errorf("domain %q: status %d, want 422: %s", name, r.Status, r.Body)
			continue
		}
		expectField(t, r, "domain", "invalid_string")
	}
	expectField(t, e.Secret("POST", "/domains", map[string]any{}), "domain", "invalid_type")
	expectField(t, e.Secret("POST", "/domains", map[string]any{"domain": 42}), "domain", "invalid_type")
	expectField(t, e.Secret("POST", "/domains", map[string]any{"domain": "example.com", "algorithm": "dsa"}),
		"algorithm", "invalid_enum_value")
	if got := listDomains(t, e); len(got) != 0 {
		t.Fatalf("a refused domain was stored: %+v", got)
	}
}

func TestAddDomainLimits(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	label63 := strings.Repeat("a", 63)
	if d := addDomain(t, e, label63+".example.com"); d.Domain != label63+".example.com" {
		t.Errorf("domain = %q", d.Domain)
	}
}

func TestAddDomainConvertsIDNToALabels(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	d := addDomain(t, e, "Bücher.Example")
	if d.Domain != "xn--bcher-kva.example" {
		t.Fatalf("domain = %q", d.Domain)
	}
	if n := d.record(t, "dkim").Name; n != "herald202601._domainkey.xn--bcher-kva.example" {
		t.Errorf("dkim name = %q", n)
	}
	r := e.Secret("POST", "/domains", map[string]any{"domain": "xn--bcher-kva.example", "algorithm": "ed25519"})
	expectError(t, r, 409, "CONFLICT") // the same domain in either form
}

func TestAddDomainTwiceConflicts(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	addDomain(t, e, "example.com")
	r := e.Secret("POST", "/domains", map[string]any{"domain": "EXAMPLE.com.", "algorithm": "ed25519"})
	env := expectError(t, r, 409, "CONFLICT")
	if !strings.Contains(env.Error.Message, "already") {
		t.Errorf("message = %q", env.Error.Message)
	}
}

func TestAddDomainProjectIDMustBeTheKeys(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	r := e.Secret("POST", "/domains", map[string]any{"domain": "example.com", "projectId": "another-project"})
	expectError(t, r, 403, "PROJECT_ACCESS_DENIED")
	r = e.Secret("POST", "/domains", map[string]any{"domain": "example.com", "projectId": e.Project.ID, "algorithm": "ed25519"})
	expectStatus(t, r, 201)
	expectError(t, e.Public("POST", "/domains", map[string]any{"domain": "example.net"}), 401, "INVALID_API_KEY")
}

func TestDomainVerifiedByAnotherProjectCannotBeAdded(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	other, err := e.App.Accounts.CreateProject(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	// Both may add it while it is pending; each gets its own selector.
	mine := addDomain(t, e, "shared.example")
	r := e.Do("POST", "/domains", other.Secret, map[string]any{"domain": "shared.example", "algorithm": "ed25519"})
	expectStatus(t, r, 201)
	var theirs domainJSON
	r.Decode(t, &theirs)
	if mine.record(t, "dkim").Name == theirs.record(t, "dkim").Name {
		t.Fatalf("two projects share the DKIM record name %s", theirs.record(t, "dkim").Name)
	}
	// The other project verifies it; a third cannot add it any more.
	publish(t, e, theirs.record(t, "dkim"))
	if d := verifyNow(t, e, mine.ID); d.Verified {
		t.Fatal("verified by the other project's record")
	}
	expectStatus(t, e.Do("GET", "/domains/"+theirs.ID+"/verify", other.Secret, nil), 200)
	third, err := e.App.Accounts.CreateProject(context.Background(), "Third")
	if err != nil {
		t.Fatal(err)
	}
	r = e.Do("POST", "/domains", third.Secret, map[string]any{"domain": "Shared.Example", "algorithm": "ed25519"})
	env := expectError(t, r, 409, "CONFLICT")
	if !strings.Contains(env.Error.Message, "another project") {
		t.Errorf("message = %q", env.Error.Message)
	}
	// Nor can the other project's domain be reached with this key.
	expectError(t, e.Secret("GET", "/domains/"+theirs.ID+"/verify", nil), 404, "DOMAIN_NOT_FOUND")
	expectError(t, e.Secret("DELETE", "/domains/"+theirs.ID, nil), 404, "DOMAIN_NOT_FOUND")
}

func TestListDomainsOfOwnProjectOnly(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	first := addDomain(t, e, "one.example")
	e.Clock.Advance(time.Second)
	second := addDomain(t, e, "two.example")
	got := listDomains(t, e)
	if len(got) != 2 || got[0].ID != second.ID || got[1].ID != first.ID {
		t.Fatalf("want newest first: %+v", got)
	}
	if len(got[0].Records) == 0 {
		t.Errorf("listed domains carry their records")
	}
	other, err := e.App.Accounts.CreateProject(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, e.Secret("GET", "/domains/project/"+other.ID, nil), 404, "NOT_FOUND")
	r := e.Do("GET", "/domains/project/"+other.ID, other.Secret, nil)
	expectStatus(t, r, 200)
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Errorf("other project's list = %s, want []", r.Body)
	}
}

func TestDeleteDomain(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	d := addVerifiedDomain(t, e, "example.com")
	tpl := createTemplate(t, e, map[string]any{"name": "n", "subject": "s", "body": "b", "from": "hi@example.com"})
	r := e.Secret("DELETE", "/domains/"+d.ID, nil)
	env := expectError(t, r, 409, "CONFLICT")
	if !strings.Contains(env.Error.Message, "template") {
		t.Errorf("message = %q", env.Error.Message)
	}
	expectStatus(t, e.Secret("DELETE", "/templates/"+tpl.ID, nil), 204)
	expectStatus(t, e.Secret("DELETE", "/domains/"+d.ID, nil), 204)
	if got := listDomains(t, e); len(got) != 0 {
		t.Fatalf("still listed: %+v", got)
	}
	expectError(t, e.Secret("DELETE", "/domains/"+d.ID, nil), 404, "DOMAIN_NOT_FOUND")
	expectError(t, e.Secret("GET", "/domains/"+d.ID+"/verify", nil), 404, "DOMAIN_NOT_FOUND")
	if err := e.App.Senders.CheckSender(context.Background(), e.Project.ID, "hi@example.com"); err == nil {
		t.Fatal("a deleted domain still sends")
	}
}
