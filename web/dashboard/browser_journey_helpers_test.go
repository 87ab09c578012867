package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/heraldmail/herald/dkim"
)

const password = "correct horse battery"

// signUp signs a new user up through the page and creates their first
// project, ending on the overview.
func signUp(tb *tab, email, project string) {
	tb.t.Helper()
	tb.open("/app/signup")
	tb.typeInto("Email", email)
	tb.typeInto("Password", password)
	tb.do(chromedp.KeyEvent("\r")) // Enter submits
	tb.waitText("Create your first project")
	tb.typeInto("Project name", project)
	tb.click(button("Create project"))
	tb.waitJS(pickerIs(project), 10*time.Second)
}

// logIn logs an existing user in through the login form.
func logIn(tb *tab, email string) {
	tb.t.Helper()
	tb.open("/app/login")
	tb.typeInto("Email", email)
	tb.typeInto("Password", password)
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitJS(`!!document.querySelector('nav[aria-label=Main]')`, 10*time.Second)
}

func jsq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fetchJSON runs fetch in the page, with its cookie, and decodes the body.
func (tb *tab) fetchJSON(path string, v any) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	js := `fetch(` + jsq(path) + `, {headers: {'X-Project-Id': localStorage.getItem('herald.project') || ''}}).then((r) => r.text())`
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.fail("fetch %s: %v", path, err)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		tb.fail("fetch %s: %v: %s", path, err, body)
	}
}

type projectJSON struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Public string  `json:"public"`
	Secret *string `json:"secret"`
	Role   string  `json:"role"`
}

// currentProject is the project the page has chosen, as the API gives it.
func (tb *tab) currentProject() projectJSON {
	tb.t.Helper()
	id := tb.eval(`localStorage.getItem('herald.project')`)
	var ps []projectJSON
	tb.fetchJSON("/users/@me/projects", &ps)
	for _, p := range ps {
		if p.ID == id {
			return p
		}
	}
	tb.fail("project %s not in %v", id, ps)
	return projectJSON{}
}

// call sends an API request with a key, as an integrator would.
func call(t *testing.T, h *herald, key, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, h.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func mustCall(t *testing.T, h *herald, key, method, path string, body any, into any) {
	t.Helper()
	status, b := call(t, h, key, method, path, body)
	if status >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, status, b)
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s %s: %v %s", method, path, err, b)
		}
	}
}

type domainJSON struct {
	ID       string `json:"id"`
	Verified bool   `json:"verified"`
	Records  []struct {
		Type, Name, Value, Purpose string
	} `json:"records"`
}

// publishDKIM puts a domain's DKIM record in the test DNS server.
func (h *herald) publishDKIM(t *testing.T, d domainJSON) {
	t.Helper()
	for _, rec := range d.Records {
		if rec.Type == "TXT" && strings.Contains(rec.Name, "._domainkey.") {
			parts := dkim.TXTStrings(rec.Value)
			for i := range parts {
				parts[i] = `"` + parts[i] + `"`
			}
			h.DNS.Add(t, fmt.Sprintf("%s. 300 IN TXT %s", strings.TrimSuffix(rec.Name, "."), strings.Join(parts, " ")))
		}
	}
}

// verifiedDomain adds and verifies a sending domain through the API.
func (h *herald) verifiedDomain(t *testing.T, key, domain string) {
	t.Helper()
	var d domainJSON
	mustCall(t, h, key, "POST", "/domains", map[string]any{"domain": domain}, &d)
	h.publishDKIM(t, d)
	mustCall(t, h, key, "GET", "/domains/"+d.ID+"/verify", nil, &d)
	if !d.Verified {
		t.Fatalf("domain %s not verified", domain)
	}
}

// pickerIs is true when the project picker shows the project.
func pickerIs(name string) string {
	return `(() => { const s = document.querySelector('#project-picker'); return !!s && s.selectedOptions[0].text === ` + jsq(name) + ` })()`
}
