package dashboard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Write a template and see the preview rendered with a contact's data.
func TestBrowser_TemplatePreview(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "tpl@example.com", "Templates")
	key := *tb.currentProject().Secret
	h.verifiedDomain(t, key, "send.example.org")
	mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": "ada@example.net", "data": map[string]any{"firstName": "Ada"}}, nil)

	tb.click(`//nav[@aria-label="Main"]//a[.="Templates"]`)
	tb.click(button("New template"))
	tb.typeInto("Name", "Welcome")
	tb.typeInto("From", "hello@send.example.org")
	tb.typeInto("Subject", "Welcome, {{ firstName }}")
	tb.typeInto("HTML body", `<h1 style="color:#2952cc">Hello {{ firstName | default: "there" }}</h1><p>Plan: {{ plan | default: "free" }}</p>`)
	tb.waitText("Subject: Welcome, Ada")
	// The frame shows the rendered HTML under its own sandboxed policy.
	tb.waitJS(`document.querySelector('.preview form textarea').value.includes('Hello Ada</h1><p>Plan: free')`, 5*time.Second)
	tb.waitPreview("Hello Ada")
	tb.click(button("Create template"))
	tb.waitText("Test send")
	if !strings.Contains(tb.eval(`location.pathname`), "/app/templates/") || strings.HasSuffix(tb.eval(`location.pathname`), "/new") {
		t.Fatalf("after create: %s", tb.eval(`location.pathname`))
	}
	tb.waitText("No campaign or workflow uses this template.")
	tb.click(button("Duplicate"))
	tb.waitJS(`document.querySelector('#page-title').textContent.includes('Welcome') && !document.body.innerText.includes('Create template')`, 5*time.Second)
	tb.click(`//nav[@aria-label="Main"]//a[.="Templates"]`)
	tb.waitJS(`document.querySelectorAll('table.list tbody tr').length === 2`, 5*time.Second)
}

// waitPreview waits until the preview frame's document shows a text. The
// frame is sandboxed (an opaque origin), so the page's script cannot read
// it; the DevTools protocol can.
func (tb *tab) waitPreview(text string) {
	tb.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		nodes, err := chromeRun(tb, chromedp.Nodes(chromedp.CSS(`iframe[title="Preview"]`)))
		if err == nil && len(nodes) > 0 {
			if got, err := chromeRun(tb, chromedp.Text(chromedp.CSS(`body`), chromedp.FromNode(nodes[0]))); err == nil && strings.Contains(got, text) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.fail("the preview frame never showed %q", text)
}

// Compose a campaign to everyone, send it, watch it reach SENT and see
// its stats.
func TestBrowser_CampaignToSent(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "camp@example.com", "Campaigns")
	key := *tb.currentProject().Secret
	h.verifiedDomain(t, key, "news.example.org")
	h.routeMail(t, "readers.example.net")
	const n = 40
	for i := range n {
		mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": fmt.Sprintf("r%d@readers.example.net", i)}, nil)
	}

	tb.click(`//nav[@aria-label="Main"]//a[.="Campaigns"]`)
	tb.click(button("New campaign"))
	tb.typeInto("Name", "November news")
	tb.typeInto("From", "editor@news.example.org")
	tb.typeInto("Subject", "What's new")
	tb.typeInto("HTML body", "<p>Hello {{ email }}</p>")
	tb.waitJS(fmt.Sprintf(`(document.querySelector('.live-count strong')||{}).textContent === '%d'`, n), 5*time.Second)
	tb.click(button("Save draft"))
	tb.waitText("Send a test to")
	tb.click(button("Send now"))
	tb.click(button("Yes, send now"))
	tb.waitJS(`[...document.querySelectorAll('.badge')].some((b) => b.textContent === 'SENT')`, 60*time.Second)
	tb.waitJS(fmt.Sprintf(`(document.querySelector('[data-stat=delivered]')||{}).textContent === '%d'`, n), 30*time.Second)
	tb.waitText("Open rate")
}
