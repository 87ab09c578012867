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

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
)

// Safe defaults and the sandbox, as a person meets them in the dashboard.

func sandboxOn(o *app.Options) { o.Sandbox = true }

// The sandbox's banner is on every page, the login page included; a sent
// email appears on the Sandbox page with its DKIM check passing, shown as
// its recipient would see it; opening it and clicking its link count as a
// recipient's open and click.
func TestBrowser_SandboxShowsACapturedMessage(t *testing.T) {
	h := startHerald(t, sandboxOn)
	tb := newTab(t, h.URL)
	tb.open("/app/login")
	tb.waitText("Sandbox: no email leaves this machine")
	signUp(tb, "sandbox@example.com", "Trying")
	tb.waitText("Sandbox: no email leaves this machine")
	key := *tb.currentProject().Secret

	var d domainJSON
	mustCall(t, h, key, "POST", "/domains", map[string]any{"domain": "try.example"}, &d)
	if !d.Verified {
		t.Fatalf("domain not verified at once in the sandbox: %+v", d)
	}
	var sent struct {
		Data struct {
			Emails []struct {
				Contact struct{ ID string } `json:"contact"`
				Email   string              `json:"email"`
			} `json:"emails"`
		} `json:"data"`
	}
	// The link leads back to this machine under another name: tracked
	// (links to Herald's own base URL are not), and nothing leaves.
	target := strings.Replace(h.URL, "127.0.0.1", "localhost", 1) + "/app/"
	mustCall(t, h, key, "POST", "/v1/send", map[string]any{"to": "reader@example.com", "from": "hello@try.example",
		"subject": "Hello from the sandbox",
		"body":    `<h1>Welcome</h1><p>Read <a href="` + target + `">the dashboard</a>.</p>`}, &sent)
	contact := sent.Data.Emails[0].Contact.ID

	tb.click(`//nav[@aria-label="Main"]//a[.="Sandbox"]`)
	tb.waitText("Hello from the sandbox")
	tb.waitText("DKIM pass")
	tb.waitText("Sandbox: no email leaves this machine")
	tb.click(`//a[.="Hello from the sandbox"]`)
	tb.waitText("The DKIM signature verifies against the key Herald holds for the domain.")
	tb.waitText("reader@example.com")
	tb.waitFrame("/view", "Welcome")

	// The open pixel loaded in the frame is a recipient's open.
	waitEvent(t, h, key, contact, "email.open")
	// A click in the frame opens the link in a new tab, through Herald's
	// click tracking.
	href, err := chromeRun(tb, frameEval("/view", `(() => { const a = document.querySelector('a'); a.click(); return a.href; })()`))
	if err != nil || !strings.HasPrefix(href, h.URL+"/t/c/") {
		t.Fatalf("clicked %q: %v", href, err)
	}
	waitEvent(t, h, key, contact, "email.click")

	tb.click(`//button[@role="tab" and .="Headers"]`)
	tb.waitText("DKIM-Signature")
	tb.click(`//button[@role="tab" and .="Source"]`)
	tb.waitText("Return-Path: <hello@try.example>")
	tb.click(`//button[@role="tab" and .="Text"]`)
	tb.waitText("Read the dashboard")
}

// waitEvent waits until a contact has an event of the name.
func waitEvent(t *testing.T, h *herald, key, contactID, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var evs struct {
			Data []struct {
				Name string `json:"name"`
			} `json:"data"`
		}
		mustCall(t, h, key, "GET", "/events/contact/"+contactID, nil, &evs)
		for _, e := range evs.Data {
			if e.Name == name {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event for the contact: %+v", name, evs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitFrame waits until the child frame whose URL contains urlPart shows
// a text.
func (tb *tab) waitFrame(urlPart, text string) {
	tb.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		got, err := chromeRun(tb, frameEval(urlPart, `document.body ? document.body.innerText : ''`))
		if err == nil && strings.Contains(got, text) {
			return
		}
		last = fmt.Sprint(got, err)
		time.Sleep(100 * time.Millisecond)
	}
	tb.fail("the frame %s never showed %q: %s", urlPart, text, last)
}

// frameEval evaluates an expression in an isolated world of the child
// frame whose URL contains urlPart, as a user's gesture (the page's own
// script cannot reach a sandboxed frame; DevTools can).
func frameEval(urlPart, expr string) chromedp.Action[string] {
	return func(ctx context.Context, t *chromedp.Target) (string, error) {
		tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return "", err
		}
		for _, child := range tree.FrameTree.ChildFrames {
			if !strings.Contains(child.Frame.URL, urlPart) {
				continue
			}
			world, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: child.Frame.ID})
			if err != nil {
				return "", err
			}
			res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr,
				ContextID: world.ExecutionContextID, ReturnByValue: ptrTo(true), UserGesture: ptrTo(true)})
			if err != nil {
				return "", err
			}
			var s string
			_ = json.Unmarshal(res.Result.Value, &s)
			return s, nil
		}
		return "", fmt.Errorf("no frame at %s", urlPart)
	}
}

// logInProjectless logs in a user who has no project yet: they land on
// the form that creates the first.
func logInProjectless(tb *tab, email string) {
	tb.t.Helper()
	tb.open("/app/login")
	tb.typeInto("Email", email)
	tb.typeInto("Password", password)
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitText("Create your first project")
}

// The administrator sees the installation's warnings as a banner; another
// user does not.
func TestBrowser_AdministratorSeesWarningsBanner(t *testing.T) {
	h := startHerald(t, func(o *app.Options) {
		o.Warnings = []string{"Bounce handling is off (HERALD_INBOUND_LISTEN is not set)"}
	})
	tb := newTab(t, h.URL)
	signUp(tb, "admin@example.com", "Mine")
	tb.waitText("This installation has 2 warnings for you, its administrator")
	tb.click(`//summary[contains(., "warnings for you")]`)
	tb.waitText("No system mail is configured")
	tb.waitText("Bounce handling is off")

	if _, err := h.App.Accounts.CreateUser(context.Background(), "user@example.com", password); err != nil {
		t.Fatal(err)
	}
	other := newTab(t, h.URL)
	logInProjectless(other, "user@example.com")
	if got := other.eval(`String(!!document.querySelector('.admin-warnings'))`); got != "false" {
		t.Fatal("a user who is not the administrator sees the warnings")
	}
}

// With sign-up closed (the default mode, once the first user exists), the
// sign-up page refuses and says how to get an account, as the login page
// does; the forgot-password page promises no mail the server cannot send.
func TestBrowser_SignupPageRefusesWhenClosed(t *testing.T) {
	h := startHerald(t, func(o *app.Options) { o.Accounts.Signups = accounts.SignupsFirst })
	tb := newTab(t, h.URL)
	tb.open("/app/signup")
	tb.waitText("Create your account") // open before the first user
	if _, err := h.App.Accounts.CreateUser(context.Background(), "op@example.com", password); err != nil {
		t.Fatal(err)
	}
	tb.open("/app/signup")
	tb.waitText("Sign-up is closed")
	tb.waitText("ask an administrator of a project here to invite your email address")
	if got := tb.eval(`String(document.querySelectorAll('input[type=password]').length)`); got != "0" {
		t.Fatalf("the closed sign-up page shows %s password fields", got)
	}
	tb.open("/app/login")
	tb.waitText("Sign-up on this server is by invitation")
	if got := tb.eval(`String(!![...document.querySelectorAll('a')].find((a) => a.textContent === 'Sign up'))`); got != "false" {
		t.Fatal("the login page links to a closed sign-up")
	}
	tb.open("/app/forgot-password")
	tb.waitText("Ask its administrator to set a new one for you")
	if got := tb.eval(`String(!!document.querySelector('input[type=email]'))`); got != "false" {
		t.Fatal("the forgot-password page asks for an email it cannot mail")
	}

	// An invitation's link opens the sign-up form, and it works.
	var inv struct {
		InviteURL string `json:"inviteUrl"`
	}
	op := newTab(t, h.URL)
	logInProjectless(op, "op@example.com")
	op.typeInto("Project name", "Team")
	op.click(button("Create project"))
	op.waitJS(pickerIs("Team"), 10*time.Second)
	op.click(`//nav[@aria-label="Main"]//a[.="Settings"]`)
	op.typeInto("Add a member by email", "guest@example.com")
	op.click(button("Add member"))
	op.waitText("This server sends no email: give guest@example.com this link")
	inv.InviteURL = op.eval(`document.querySelector('.invite-link').textContent`)
	if !strings.HasPrefix(inv.InviteURL, h.URL+"/app/signup?inviteToken=") {
		t.Fatalf("link %q", inv.InviteURL)
	}
	op.waitText("Invited")

	guest := newTab(t, h.URL)
	guest.open(strings.TrimPrefix(inv.InviteURL, h.URL))
	guest.waitText("Accept your invitation")
	guest.typeInto("Email", "guest@example.com")
	guest.typeInto("Password", password)
	guest.do(chromedp.KeyEvent("\r"))
	guest.waitJS(pickerIs("Team"), 10*time.Second)
}
