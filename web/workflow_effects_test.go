package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/web/webtest"
)

func TestWorkflowSendEmail(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	tpl := e.Secret("POST", "/templates", map[string]any{"name": "Welcome", "subject": "Hi {{name}}",
		"body": "<p>Plan {{event.plan}} for {{email}}</p>", "from": "hello@herald.test", "type": "TRANSACTIONAL"})
	expectStatus(t, tpl, 201)
	tplID := tpl.JSON()["id"].(string)
	mkt := e.Secret("POST", "/templates", map[string]any{"name": "News", "subject": "News", "body": "<p>n</p>",
		"from": "hello@herald.test", "type": "MARKETING"})
	mktID := mkt.JSON()["id"].(string)

	w := createWorkflow(t, e, map[string]any{"name": "Mailer", "eventName": "signup", "enabled": true})
	send := addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "templateId": tplID, "config": map[string]any{}})
	if send.TemplateID == nil || *send.TemplateID != tplID || send.Config["templateId"] != tplID {
		t.Fatalf("templateId at both levels: %+v", send)
	}
	addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": mktID}})
	addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": tplID,
		"recipient": map[string]any{"type": "CUSTOM", "customEmail": "ops@example.net"}}})
	expectField(t, e.Secret("POST", "/workflows/"+w.ID+"/steps", map[string]any{"type": "SEND_EMAIL",
		"config": map[string]any{"templateId": tplID, "recipient": map[string]any{"type": "CUSTOM"}}}), "config.recipient.customEmail", "invalid_type")

	// Template usage and the 409 on delete.
	u := e.Secret("GET", "/templates/"+tplID+"/usage", nil).JSON()
	if ws := u["workflows"].([]any); len(ws) != 2 || ws[0].(map[string]any)["workflowName"] != "Mailer" {
		t.Errorf("usage %v", u)
	}
	expectError(t, e.Secret("DELETE", "/templates/"+tplID, nil), 409, "CONFLICT")

	createContact(t, e, map[string]any{"email": "ada@example.net", "subscribed": false, "data": map[string]any{"name": "Ada"}})
	trackEvent(t, e, "ada@example.net", "signup", map[string]any{"plan": "pro"})
	xs := waitExecutions(t, e, w.ID, "COMPLETED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	if len(x.StepExecutions) != 4 {
		t.Fatalf("steps %+v", x.StepExecutions)
	}
	first, second, third := x.StepExecutions[1].Output, x.StepExecutions[2].Output, x.StepExecutions[3].Output
	if first["status"] != "SENT" || first["to"] != "ada@example.net" || first["templateId"] != tplID || first["emailId"] == nil {
		t.Errorf("send output %v", first)
	}
	if second["status"] != "FAILED" || second["reason"] == nil {
		t.Errorf("marketing to an unsubscribed contact: %v", second)
	}
	if third["to"] != "ops@example.net" || third["status"] != "SENT" {
		t.Errorf("custom output %v", third)
	}
	got := e.Sink.Wait(2, 10*time.Second)
	if len(got) != 2 {
		t.Fatalf("received %d", len(got))
	}
	for _, m := range got {
		verifyDKIM(t, e, m.Data)
		if html := htmlPart(t, m.Data); !strings.Contains(html, "Plan pro for ada@example.net") {
			t.Errorf("rendered %s", html)
		}
	}
	// email.sent carries the workflow and the execution; none for the
	// failed one; the custom recipient is no contact.
	evs := contactEvents(t, e, x.ContactID)
	if countNamed(evs, "email.sent") != 1 {
		t.Errorf("events %v", eventNames(evs))
	}
	for _, ev := range evs {
		if ev.Name == "email.sent" && (ev.Data["workflowId"] != w.ID || ev.Data["workflowExecutionId"] != x.ID) {
			t.Errorf("email.sent data %v", ev.Data)
		}
	}
	if r := e.Secret("GET", "/contacts?search=ops@example.net", nil).JSON(); r["total"] != float64(0) {
		t.Errorf("custom recipient became a contact: %v", r)
	}
}

// A workflow on email.sent does not run from its own emails.
func TestWorkflowNotFromItsOwnEmails(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	tplID := e.Secret("POST", "/templates", map[string]any{"name": "T", "subject": "s", "body": "<p>b</p>",
		"from": "hello@herald.test", "type": "TRANSACTIONAL"}).JSON()["id"].(string)
	w := createWorkflow(t, e, map[string]any{"name": "Loop", "eventName": "email.sent", "enabled": true, "allowReentry": true})
	addStep(t, e, w.ID, map[string]any{"type": "SEND_EMAIL", "config": map[string]any{"templateId": tplID}})
	other := createWorkflow(t, e, map[string]any{"name": "Watcher", "eventName": "email.sent", "enabled": true, "allowReentry": true})
	sendOK(t, e, map[string]any{"to": "ada@example.net", "template": tplID})
	waitExecutions(t, e, w.ID, "COMPLETED", 1)
	waitExecutions(t, e, other.ID, "COMPLETED", 2) // the send's and the workflow's email
	waitEngineIdle(t, e)                           // its email.sent is taken: had it enrolled, the execution would exist
	var p page[executionJSON]
	e.Secret("GET", "/workflows/"+w.ID+"/executions", nil).Decode(t, &p)
	if p.Total != 1 {
		t.Fatalf("the workflow ran from its own email: %d executions", p.Total)
	}
}

func TestWorkflowFailsOnDeletedContact(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	w := createWorkflow(t, e, map[string]any{"name": "Late", "eventName": "go", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "DELAY", "config": map[string]any{"amount": 1, "unit": "minutes"}})
	addStep(t, e, w.ID, map[string]any{"type": "UPDATE_CONTACT", "config": map[string]any{"updates": map[string]any{"a": 1}}})
	trackEvent(t, e, "gone@example.com", "go", nil)
	xs := waitExecutions(t, e, w.ID, "WAITING", 1)
	expectStatus(t, e.Secret("DELETE", "/contacts/"+xs[0].ContactID, nil), 204)
	e.Clock.Advance(time.Minute)
	xs = waitExecutions(t, e, w.ID, "FAILED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	last := x.StepExecutions[len(x.StepExecutions)-1]
	if last.Status != "FAILED" || last.Error == nil || !strings.Contains(*last.Error, "deleted") || x.ExitReason == nil || *x.ExitReason != *last.Error {
		t.Fatalf("failed %+v %+v", x, last)
	}
}

// receiver is a webhook endpoint that records requests and answers with
// the statuses it is given, then 200.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	reqs     []recorded
}

type recorded struct {
	method, sig string
	header      http.Header
	body        []byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{method: r.Method, sig: r.Header.Get("X-Herald-Signature"), header: r.Header, body: b})
	status := 200
	if len(rc.statuses) > 0 {
		status, rc.statuses = rc.statuses[0], rc.statuses[1:]
	}
	rc.mu.Unlock()
	if status == 302 {
		w.Header().Set("Location", "http://127.0.0.1:1/")
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"ok":true}`))
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.reqs)
}

func TestWorkflowWebhook(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{Webhooks: workflow.WebhookOptions{AllowPrivate: true, RetryBase: 30 * time.Second}})
	rc := &receiver{statuses: []int{500, 302}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	w := createWorkflow(t, e, map[string]any{"name": "Hook", "eventName": "go", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": srv.URL + "/h/{{event.k}}",
		"headers": map[string]any{"X-Who": "{{email}}"}}})
	trackEvent(t, e, "hook@example.com", "go", map[string]any{"k": "v1"})
	waitUntil(t, "first attempt", func() bool { return rc.count() == 1 })
	e.AdvanceToRetry(workflow.JobWebhook) // 30s
	waitUntil(t, "second attempt", func() bool { return rc.count() == 2 })
	e.AdvanceToRetry(workflow.JobWebhook) // 60s
	xs := waitExecutions(t, e, w.ID, "COMPLETED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	out := x.StepExecutions[1].Output
	if out["statusCode"] != float64(200) || out["attempts"] != float64(3) || out["method"] != "POST" ||
		out["url"] != srv.URL+"/h/v1" || out["response"].(map[string]any)["ok"] != true {
		t.Fatalf("output %v", out)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.reqs) != 3 || string(rc.reqs[0].body) != string(rc.reqs[2].body) {
		t.Fatalf("a retry sends the same body: %d requests", len(rc.reqs))
	}
	var body map[string]any
	_ = json.Unmarshal(rc.reqs[0].body, &body)
	if body["contact"].(map[string]any)["email"] != "hook@example.com" || body["workflow"].(map[string]any)["name"] != "Hook" ||
		body["event"].(map[string]any)["k"] != "v1" || body["execution"].(map[string]any)["id"] != x.ID {
		t.Errorf("default body %v", body)
	}
	if rc.reqs[0].header.Get("X-Who") != "hook@example.com" {
		t.Errorf("header %v", rc.reqs[0].header)
	}
	for _, r := range rc.reqs {
		parts := strings.Split(r.sig, ",")
		if len(parts) != 2 || !strings.HasPrefix(parts[0], "t=") || !strings.HasPrefix(parts[1], "v1=") {
			t.Fatalf("signature %q", r.sig)
		}
		mac := hmac.New(sha256.New, []byte(e.Project.Secret))
		mac.Write([]byte(strings.TrimPrefix(parts[0], "t=") + "." + string(r.body)))
		if hex.EncodeToString(mac.Sum(nil)) != strings.TrimPrefix(parts[1], "v1=") {
			t.Errorf("bad signature %q", r.sig)
		}
	}
}

func TestWorkflowWebhookGivesUp(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{Webhooks: workflow.WebhookOptions{AllowPrivate: true, RetryBase: time.Second}})
	rc := &receiver{statuses: []int{503, 503, 503, 503, 503}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	w := createWorkflow(t, e, map[string]any{"name": "Down", "eventName": "go", "enabled": true})
	addStep(t, e, w.ID, map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": srv.URL, "method": "GET"}})
	trackEvent(t, e, "down@example.com", "go", nil)
	for i := 1; i < 5; i++ {
		waitUntil(t, "attempt", func() bool { return rc.count() == i })
		e.AdvanceToRetry(workflow.JobWebhook)
	}
	xs := waitExecutions(t, e, w.ID, "FAILED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	last := x.StepExecutions[1]
	if last.Error == nil || !strings.Contains(*last.Error, "503") || last.Output["attempts"] != float64(5) || rc.reqs[0].method != "GET" {
		t.Fatalf("given up %+v", last)
	}
}

func TestWorkflowWebhookSSRFGuard(t *testing.T) {
	t.Parallel()
	e := webtest.New(t, webtest.Options{})
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	e.DNS.Add(t, "internal.example. 300 IN A 127.0.0.1")
	w := createWorkflow(t, e, map[string]any{"name": "SSRF", "eventName": "go", "enabled": true, "allowReentry": true})
	hook := addStep(t, e, w.ID, map[string]any{"type": "WEBHOOK", "config": map[string]any{"url": "http://internal.example" + port + "/"}})
	trackEvent(t, e, "s@example.com", "go", nil)
	xs := waitExecutions(t, e, w.ID, "FAILED", 1)
	x := getExecution(t, e, w.ID, xs[0].ID)
	last := x.StepExecutions[1]
	if last.Error == nil || !strings.Contains(*last.Error, "127.0.0.1") || !strings.Contains(*last.Error, "HERALD_WEBHOOK_ALLOW_PRIVATE") ||
		last.Output["attempts"] != float64(0) || rc.count() != 0 {
		t.Fatalf("guard %+v", last)
	}
	for i, u := range []string{"http://10.1.2.3/", "http://169.254.169.254/", "http://100.64.0.1/", "http://[::1]/", "http://0.0.0.0/", "http://224.0.0.1/"} {
		expectStatus(t, e.Secret("PATCH", "/workflows/"+w.ID+"/steps/"+hook.ID, map[string]any{"config": map[string]any{"url": u}}), 200)
		trackEvent(t, e, "s@example.com", "go", nil)
		xs := waitExecutions(t, e, w.ID, "FAILED", i+2)
		if !strings.Contains(*xs[0].ExitReason, "HERALD_WEBHOOK_ALLOW_PRIVATE") {
			t.Errorf("%s: %s", u, *xs[0].ExitReason)
		}
	}
}
