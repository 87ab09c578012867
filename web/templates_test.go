package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/heraldmail/herald/web/webtest"
)

// templateJSON is a template as the API returns it.
type templateJSON struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Subject     string    `json:"subject"`
	Body        string    `json:"body"`
	From        string    `json:"from"`
	FromName    *string   `json:"fromName"`
	ReplyTo     *string   `json:"replyTo"`
	Type        string    `json:"type"`
	ProjectID   string    `json:"projectId"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func createTemplate(t *testing.T, e *webtest.Env, body map[string]any) templateJSON {
	t.Helper()
	r := e.Secret("POST", "/templates", body)
	expectStatus(t, r, 201)
	var tpl templateJSON
	r.Decode(t, &tpl)
	return tpl
}

// templateEnv is a Herald whose project has verified example.com.
func templateEnv(t *testing.T) *webtest.Env {
	e := webtest.New(t, webtest.Options{})
	addVerifiedDomain(t, e, "example.com")
	return e
}

func minimalTemplate(mods ...map[string]any) map[string]any {
	b := map[string]any{"name": "Welcome", "subject": "Hello {{ name ?? \"there\" }}", "body": "<p>Hi {{name}}</p>",
		"from": "hello@example.com"}
	for _, m := range mods {
		for k, v := range m {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
	}
	return b
}

func TestCreateTemplate(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, map[string]any{"name": "Receipt", "description": "sent after checkout",
		"subject": "Your receipt", "body": "<p>{{ data.total }}</p>", "from": "Billing@Example.com",
		"fromName": "Billing", "replyTo": "support@example.com", "type": "TRANSACTIONAL"})
	if tpl.ID == "" || tpl.Name != "Receipt" || *tpl.Description != "sent after checkout" || tpl.Subject != "Your receipt" ||
		tpl.Body != "<p>{{ data.total }}</p>" || tpl.From != "billing@example.com" || *tpl.FromName != "Billing" ||
		*tpl.ReplyTo != "support@example.com" || tpl.Type != "TRANSACTIONAL" || tpl.ProjectID != e.Project.ID ||
		!tpl.CreatedAt.Equal(webtest.Start) || !tpl.UpdatedAt.Equal(webtest.Start) {
		t.Fatalf("template = %+v", tpl)
	}
	r := e.Secret("GET", "/templates/"+tpl.ID, nil)
	expectStatus(t, r, 200)
	var got templateJSON
	r.Decode(t, &got)
	if got.ID != tpl.ID || got.Body != tpl.Body || got.Type != tpl.Type {
		t.Errorf("GET = %+v", got)
	}
}

func TestCreateTemplateDefaults(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	r := e.Secret("POST", "/templates", minimalTemplate())
	expectStatus(t, r, 201)
	m := r.JSON()
	if m["type"] != "MARKETING" {
		t.Errorf("type = %v, want MARKETING", m["type"])
	}
	for _, k := range []string{"description", "fromName", "replyTo"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
}

func TestCreateTemplateWithoutFromIsPlain400(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	for _, from := range []any{nil, "", "   "} {
		body := minimalTemplate(map[string]any{"from": nil})
		if from != nil {
			body["from"] = from
		}
		r := e.Secret("POST", "/templates", body)
		expectStatus(t, r, 400)
		m := r.JSON()
		if msg, _ := m["error"].(string); msg == "" || len(m) != 1 {
			t.Errorf("from %v: want a bare {error} body, got %s", from, r.Body)
		}
	}
}

func TestCreateTemplateUnverifiedDomainIs403(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	addDomain(t, e, "pending.example") // added, never verified
	for _, from := range []string{"hello@other.example", "hello@pending.example", "hello@sub.example.com"} {
		r := e.Secret("POST", "/templates", minimalTemplate(map[string]any{"from": from}))
		env := expectError(t, r, 403, "INTERNAL_SERVER_ERROR")
		_, domain, _ := strings.Cut(from, "@")
		if env.Error.Details["reason"] != "DOMAIN_NOT_VERIFIED" || env.Error.Details["domain"] != domain ||
			env.Error.Suggestion == "" {
			t.Errorf("from %s: %s", from, r.Body)
		}
	}
	if r := e.Secret("GET", "/templates", nil); r.JSON()["total"] != float64(0) {
		t.Errorf("a refused template was stored: %s", r.Body)
	}
}

func TestCreateTemplateValidation(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	cases := []struct {
		name        string
		mods        map[string]any
		field, code string
	}{
		{"missing name", map[string]any{"name": nil}, "name", "invalid_type"},
		{"blank name", map[string]any{"name": "  "}, "name", "too_small"},
		{"long name", map[string]any{"name": strings.Repeat("n", 256)}, "name", "too_big"},
		{"missing subject", map[string]any{"subject": nil}, "subject", "invalid_type"},
		{"empty subject", map[string]any{"subject": ""}, "subject", "too_small"},
		{"subject with newline", map[string]any{"subject": "Hi\r\nBcc: x@evil.test"}, "subject", "invalid_string"},
		{"long subject", map[string]any{"subject": strings.Repeat("s", 999)}, "subject", "too_big"},
		{"subject syntax", map[string]any{"subject": "Hi {{ name | }}"}, "subject", "invalid_template"},
		{"missing body", map[string]any{"body": nil}, "body", "invalid_type"},
		{"empty body", map[string]any{"body": ""}, "body", "too_small"},
		{"body syntax", map[string]any{"body": "{% if x %}never closed"}, "body", "invalid_template"},
		{"body unknown filter", map[string]any{"body": "{{ name | shout }}"}, "body", "invalid_template"},
		{"body include", map[string]any{"body": `{% include "/etc/passwd" %}`}, "body", "invalid_template"},
		{"bad from", map[string]any{"from": "not-an-email"}, "from", "invalid_string"},
		{"bad replyTo", map[string]any{"replyTo": "nope@"}, "replyTo", "invalid_string"},
		{"bad type", map[string]any{"type": "NEWSLETTER"}, "type", "invalid_enum_value"},
		{"lower-case type", map[string]any{"type": "marketing"}, "type", "invalid_enum_value"},
		{"fromName with newline", map[string]any{"fromName": "A\nB"}, "fromName", "invalid_string"},
		{"name not a string", map[string]any{"name": 5}, "name", "invalid_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectField(t, e.Secret("POST", "/templates", minimalTemplate(c.mods)), c.field, c.code)
		})
	}
	r := e.Secret("POST", "/templates", minimalTemplate(map[string]any{"name": nil, "type": "X", "replyTo": "bad"}))
	env := expectError(t, r, 422, "VALIDATION_ERROR")
	if len(env.Error.Errors) != 3 {
		t.Errorf("want all three failures at once: %s", r.Body)
	}
}

func TestGetTemplateNotFound(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	for _, path := range []string{"/templates/nope", "/templates/nope/usage"} {
		expectError(t, e.Secret("GET", path, nil), 404, "TEMPLATE_NOT_FOUND")
	}
	expectError(t, e.Secret("PATCH", "/templates/nope", map[string]any{"name": "x"}), 404, "TEMPLATE_NOT_FOUND")
	expectError(t, e.Secret("DELETE", "/templates/nope", nil), 404, "TEMPLATE_NOT_FOUND")
	expectError(t, e.Secret("POST", "/templates/nope/duplicate", nil), 404, "TEMPLATE_NOT_FOUND")

	other, err := e.App.Accounts.CreateProject(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	tpl := createTemplate(t, e, minimalTemplate())
	expectError(t, e.Do("GET", "/templates/"+tpl.ID, other.Secret, nil), 404, "TEMPLATE_NOT_FOUND")
	expectError(t, e.Do("DELETE", "/templates/"+tpl.ID, other.Secret, nil), 404, "TEMPLATE_NOT_FOUND")
}

func TestUpdateTemplate(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, minimalTemplate(map[string]any{"description": "note", "fromName": "Team"}))
	e.Clock.Advance(time.Minute)
	r := e.Secret("PATCH", "/templates/"+tpl.ID, map[string]any{"name": "Renamed", "description": "",
		"type": "HEADLESS", "replyTo": "r@example.net"})
	expectStatus(t, r, 200)
	var got templateJSON
	r.Decode(t, &got)
	if got.Name != "Renamed" || got.Description != nil || got.Type != "HEADLESS" || *got.ReplyTo != "r@example.net" ||
		got.Subject != tpl.Subject || *got.FromName != "Team" || !got.CreatedAt.Equal(tpl.CreatedAt) ||
		!got.UpdatedAt.Equal(webtest.Start.Add(time.Minute)) {
		t.Fatalf("after PATCH: %+v", got)
	}
	r = e.Secret("GET", "/templates/"+tpl.ID, nil)
	var stored templateJSON
	r.Decode(t, &stored)
	if stored.Name != "Renamed" || stored.Description != nil {
		t.Errorf("not stored: %+v", stored)
	}
}

func TestUpdateTemplateChecksFromAndFields(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, minimalTemplate())
	path := "/templates/" + tpl.ID
	r := e.Secret("PATCH", path, map[string]any{"from": "hello@unverified.example"})
	expectError(t, r, 403, "INTERNAL_SERVER_ERROR")
	expectField(t, e.Secret("PATCH", path, map[string]any{"from": ""}), "from", "invalid_string")
	expectField(t, e.Secret("PATCH", path, map[string]any{"type": "bogus"}), "type", "invalid_enum_value")
	expectField(t, e.Secret("PATCH", path, map[string]any{"name": ""}), "name", "too_small")
	expectField(t, e.Secret("PATCH", path, map[string]any{"body": "{{ x | }}"}), "body", "invalid_template")
	expectField(t, e.Secret("PATCH", path, map[string]any{"subject": "a\nb"}), "subject", "invalid_string")

	addVerifiedDomain(t, e, "example.net")
	r = e.Secret("PATCH", path, map[string]any{"from": "news@example.net"})
	expectStatus(t, r, 200)
	if r.JSON()["from"] != "news@example.net" {
		t.Errorf("from = %v", r.JSON()["from"])
	}
	// Once its domain is un-verified, a template can still be edited in
	// other ways: only a changed from is checked.
	atCom := createTemplate(t, e, minimalTemplate())
	d := listDomains(t, e)[1] // example.com, the older
	e.DNS.Remove(d.record(t, "dkim").Name, dns.TypeTXT)
	verifyNow(t, e, d.ID)
	if d = verifyNow(t, e, d.ID); d.Verified || d.Domain != "example.com" {
		t.Fatalf("domain = %+v", d)
	}
	expectStatus(t, e.Secret("PATCH", "/templates/"+atCom.ID, map[string]any{"name": "still editable", "from": "hello@example.com"}), 200)
	expectError(t, e.Secret("PATCH", "/templates/"+atCom.ID, map[string]any{"from": "other@example.com"}), 403, "INTERNAL_SERVER_ERROR")
	expectError(t, e.Secret("PATCH", path, map[string]any{"from": "news@example.com"}), 403, "INTERNAL_SERVER_ERROR")
}

func TestDeleteTemplate(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, minimalTemplate())
	expectStatus(t, e.Secret("DELETE", "/templates/"+tpl.ID, nil), 204)
	expectError(t, e.Secret("GET", "/templates/"+tpl.ID, nil), 404, "TEMPLATE_NOT_FOUND")
	expectError(t, e.Secret("DELETE", "/templates/"+tpl.ID, nil), 404, "TEMPLATE_NOT_FOUND")
}
