package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// bomb took the process to 2.2 GB and 10 s of CPU: assign/append doubling
// a string, then nested loops printing it.
const bomb = `{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}` +
	`{% for a in (1..1000) %}{% for b in (1..1000) %}{{ s }}{% endfor %}{% endfor %}`

// dataLoops crosses the iteration bound only with the data of a contact
// whose n is 1,000: a save-time check cannot see it.
const dataLoops = `{% for a in (1..n) %}{% for b in (1..n) %}{% endfor %}{% endfor %}done`

// expectLimit checks a 422 at field with code template_limit whose message
// names the bound.
func expectLimit(t *testing.T, r webtest.Response, field, bound string) {
	t.Helper()
	env := expectError(t, r, 422, "VALIDATION_ERROR")
	for _, f := range env.Error.Errors {
		if f.Field == field && f.Code == "template_limit" && strings.Contains(f.Message, bound) {
			return
		}
	}
	t.Fatalf("no template_limit item at %s naming %q: %s", field, bound, r.Body)
}

func TestSendOverATemplateBoundIs422(t *testing.T) {
	e := webtest.New(t, webtest.Options{RenderWork: time.Minute}) // as below
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	send := func(subject, body string, data map[string]any) webtest.Response {
		return e.Secret("POST", "/v1/send", map[string]any{"to": "a@example.net", "from": "x@herald.test",
			"subject": subject, "body": body, "data": data})
	}
	start := time.Now()
	expectLimit(t, send("s", bomb, nil), "body", "1 MiB")
	t.Logf("the bomb answered in %v", time.Since(start))
	expectLimit(t, send(`{% for i in (1..200000) %}{% endfor %}`, "b", nil), "subject", "100,000")
	expectLimit(t, send("s", dataLoops, map[string]any{"n": 1000}), "body", "100,000")
	expectLimit(t, send("s", `{% for i in (1..3000) %}{{ k }}{% endfor %}`, map[string]any{"k": strings.Repeat("k", 1024)}), "body", "1 MiB")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("a refused send stored %d contacts", n)
	}
	sendOK(t, e, map[string]any{"to": "a@example.net", "from": "x@herald.test", "subject": "s", "body": dataLoops,
		"data": map[string]any{"n": 10}})
	if got := e.Sink.Wait(1, 10*time.Second); len(got) != 1 {
		t.Fatalf("%d messages, want only the one within bounds", len(got))
	}
}

func TestTemplatesAndCampaignsOverABoundAre422(t *testing.T) {
	// The time bound is a minute here: on a loaded machine 100,000 loop
	// iterations can take longer than the production second, and the test
	// is of the other bounds.
	e := webtest.New(t, webtest.Options{RenderWork: time.Minute})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	tpl := map[string]any{"name": "t", "subject": "s", "body": bomb, "from": "x@herald.test"}
	expectLimit(t, e.Secret("POST", "/templates", tpl), "body", "1 MiB")
	tpl["body"], tpl["subject"] = "fine", `{% for a in (1..1000) %}{% for b in (1..1000) %}{% endfor %}{% endfor %}`
	expectLimit(t, e.Secret("POST", "/templates", tpl), "subject", "100,000")
	tpl["subject"] = "s"
	r := e.Secret("POST", "/templates", tpl)
	expectStatus(t, r, 201)
	id := r.JSON()["id"].(string)
	expectLimit(t, e.Secret("PATCH", "/templates/"+id, map[string]any{"body": bomb}), "body", "1 MiB")
	if got := e.Secret("GET", "/templates/"+id, nil).JSON(); got["body"] != "fine" {
		t.Fatalf("a refused update changed the template: %v", got)
	}

	expectLimit(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"body": bomb})), "body", "1 MiB")
	c := createCampaign(t, e, campaignBody(map[string]any{"body": dataLoops}))
	expectLimit(t, e.Secret("PUT", "/campaigns/"+c.ID, campaignBody(map[string]any{"subject": bomb})), "subject", "1 MiB")
	// A test send renders with the address's contact data.
	createContact(t, e, map[string]any{"email": "big@example.net", "data": map[string]any{"n": 1000}})
	createContact(t, e, map[string]any{"email": "small@example.net", "data": map[string]any{"n": 3}})
	expectLimit(t, e.Secret("POST", "/campaigns/"+c.ID+"/test", map[string]any{"email": "big@example.net"}), "body", "100,000")
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/test", map[string]any{"email": "small@example.net"}), 200)
	if got := e.Sink.Wait(1, 10*time.Second); len(got) != 1 || got[0].To[0] != "small@example.net" {
		t.Fatalf("sent %d messages", len(got))
	}
	var list struct{ Data []map[string]any }
	e.Secret("GET", "/templates", nil).Decode(t, &list)
	if n := len(list.Data); n != 1 {
		t.Fatalf("%d templates stored", n)
	}
}

// truncate past 1,000 built a regular expression that panicked, and a
// case tag panicked inside Liquid: both were 500s.
func TestTemplatesThatPanickedInLiquid(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	sendOK(t, e, map[string]any{"to": "a@example.net", "from": "x@herald.test", "subject": "s",
		"body": "{{ s | truncate: 5000 }} {{ s | truncatewords: 5000 }}"})
	crash := `{%case {%when ""%}{%endcase%}`
	expectField(t, e.Secret("POST", "/v1/send", map[string]any{"to": "a@example.net", "from": "x@herald.test",
		"subject": "s", "body": crash}), "body", "invalid_template")
	expectField(t, e.Secret("POST", "/templates", map[string]any{"name": "t", "subject": crash, "body": "b",
		"from": "x@herald.test"}), "subject", "invalid_template")
}
