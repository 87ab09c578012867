package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Write a template and see the preview rendered with a contact's data.
func TestBrowser_TemplatePreview(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "tpl@example.com", "Templates")
	key := *tb.currentProject().Secret
	h.verifiedDomain(t, key, "ex.org")
	mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": "ada@example.net", "data": map[string]any{"firstName": "Ada"}}, nil)

	tb.click(`//nav[@aria-label="Main"]//a[.="Templates"]`)
	tb.click(button("New template"))
	tb.typeInto("Name", "Welcome")
	tb.typeInto("From", "hello@ex.org")
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
	var last string
	for time.Now().Before(deadline) {
		got, err := chromeRun(tb, frameText(`iframe[title="Preview"]`))
		if err == nil && strings.Contains(got, text) {
			return
		}
		last = fmt.Sprint(got, err)
		time.Sleep(100 * time.Millisecond)
	}
	tb.fail("the preview frame never showed %q: %s", text, last)
}

// frameText reads the text of a child frame's document in an isolated
// world of that frame (the page's own script cannot reach a sandboxed
// frame, DevTools can).
func frameText(iframeCSS string) chromedp.Action[string] {
	return func(ctx context.Context, t *chromedp.Target) (string, error) {
		tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return "", err
		}
		for _, child := range tree.FrameTree.ChildFrames {
			if !strings.Contains(child.Frame.URL, "/app/preview") {
				continue
			}
			world, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: child.Frame.ID})
			if err != nil {
				return "", err
			}
			res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.body ? document.body.innerText : ''",
				ContextID: world.ExecutionContextID, ReturnByValue: ptrTo(true)})
			if err != nil {
				return "", err
			}
			var s string
			_ = json.Unmarshal(res.Result.Value, &s)
			return s, nil
		}
		return "", fmt.Errorf("no preview frame")
	}
}

func ptrTo[T any](v T) *T { return &v }

// Compose a campaign to everyone, send it, watch it reach SENT and see
// its stats.
func TestBrowser_CampaignToSent(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "camp@example.com", "Campaigns")
	key := *tb.currentProject().Secret
	h.verifiedDomain(t, key, "ex.org")
	h.routeMail(t, "readers.example.net")
	const n = 40
	for i := range n {
		mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": fmt.Sprintf("r%d@readers.example.net", i)}, nil)
	}

	tb.click(`//nav[@aria-label="Main"]//a[.="Campaigns"]`)
	tb.click(button("New campaign"))
	tb.typeInto("Name", "November news")
	tb.typeInto("From", "editor@ex.org")
	tb.typeInto("Subject", "What's new")
	tb.typeInto("HTML body", "<p>Hello {{ email }}</p>")
	tb.waitJS(fmt.Sprintf(`(document.querySelector('.live-count strong')||{}).textContent === '%d'`, n), 5*time.Second)
	tb.click(button("Save draft"))
	tb.waitText("Send a test to")
	tb.click(button("Send now"))
	tb.click(button("Yes, send now"))
	tb.waitJS(`[...document.querySelectorAll('.badge')].some((b) => b.textContent === 'SENT')`, 60*time.Second)
	tb.waitJS(fmt.Sprintf(`(document.querySelector('[data-stat=delivered]')||{}).textContent === '%d'`, n), 30*time.Second)
	tb.waitText("Opened")
}
