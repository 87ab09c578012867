package dashboard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Sign up, create a project, see its name and the navigation; every page
// of the navigation shows within a second of its click; the session
// cookie is HttpOnly; log out and back in with Enter.
func TestBrowser_SignUpAndCreateProject(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "owner@example.com", "Acme Mail")
	tb.waitText("Get started")

	for _, name := range []string{"Contacts", "Templates", "Campaigns", "Segments", "Domains", "Settings"} {
		link := `//nav[@aria-label="Main"]//a[normalize-space()=` + xq(name) + `]`
		start := time.Now()
		tb.click(link)
		tb.waitJS(`(document.querySelector('#page-title')||{}).textContent === `+jsq(name), 3*time.Second)
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s took %v to show", name, took)
		}
	}

	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cookies.Cookies {
		if c.Name == "herald_session" {
			found = true
			if !c.HTTPOnly {
				t.Error("herald_session is not HttpOnly")
			}
		}
	}
	if !found || strings.Contains(tb.eval(`document.cookie`), "herald_session") {
		t.Fatalf("session cookie: found %v, visible to script: %q", found, tb.eval(`document.cookie`))
	}

	// Settings' own reads finish before logging out: a read still in flight
	// when the session ends is answered 401, which the harness counts as a
	// console error (seen on a loaded CI machine).
	tb.waitJS(`!document.body.innerText.includes("Loading…")`, 5*time.Second)
	tb.click(button("Log out"))
	tb.waitText("First start?")
	logIn(tb, "owner@example.com")
	tb.waitJS(pickerIs("Acme Mail"), 5*time.Second)

	// A second project from the picker, then back to the first.
	tb.choose("Project", "__new")
	tb.waitText("New project")
	tb.typeInto("Project name", "Side project")
	tb.click(button("Create project"))
	tb.waitJS(pickerIs("Side project"), 5*time.Second)
	tb.choose("Project", "Acme Mail")
	tb.waitJS(pickerIs("Acme Mail")+` && document.body.innerText.includes("Get started")`, 5*time.Second)

	// A tablet: every page fits its width, nothing scrolls sideways.
	tb.do(chromedp.EmulateViewport(768, 1024))
	for _, name := range []string{"Contacts", "Campaigns", "Settings"} {
		tb.click(`//nav[@aria-label="Main"]//a[normalize-space()=` + xq(name) + `]`)
		tb.waitJS(`(document.querySelector('#page-title')||{}).textContent === `+jsq(name), 3*time.Second)
		if w := tb.eval(`String(document.documentElement.scrollWidth - innerWidth)`); w != "0" {
			t.Errorf("%s is %s px wider than a 768 px tablet", name, w)
		}
	}
}

// Regenerate the keys from Settings: the confirmation says the old keys
// stop at once, the old secret key is refused at once, the new one works.
func TestBrowser_RegenerateKeys(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "keys@example.com", "Keys")
	old := tb.currentProject()
	if old.Secret == nil || !strings.HasPrefix(*old.Secret, "sk_") {
		t.Fatalf("owner's project: %+v", old)
	}
	if status, _ := call(t, h, *old.Secret, "GET", "/contacts", nil); status != 200 {
		t.Fatalf("old key before: %d", status)
	}
	tb.click(`//nav[@aria-label="Main"]//a[.="Settings"]`)
	tb.waitText("API keys")
	tb.waitText(old.Public)
	tb.click(button("Regenerate keys"))
	tb.waitText("The old keys stop working at once")
	tb.click(button("Yes, regenerate keys"))
	tb.waitText("New keys made")
	fresh := tb.currentProject()
	if fresh.Secret == nil || *fresh.Secret == *old.Secret {
		t.Fatal("the secret key did not change")
	}
	tb.waitText(*fresh.Secret) // shown in full once, with its copy button
	if status, _ := call(t, h, *old.Secret, "GET", "/contacts", nil); status != 401 {
		t.Fatalf("old key after: %d, want 401", status)
	}
	if status, _ := call(t, h, *fresh.Secret, "GET", "/contacts", nil); status != 200 {
		t.Fatalf("new key: %d", status)
	}
}

// An owner adds a member from Settings; the member sees the project and
// the Settings page, but none of the controls a MEMBER may not use.
func TestBrowser_MemberSeesNoAdminSettings(t *testing.T) {
	h := startHerald(t)
	member := newTab(t, h.URL)
	member.open("/app/signup")
	member.typeInto("Email", "member@example.com")
	member.typeInto("Password", password)
	member.do(chromedp.KeyEvent("\r"))
	member.waitText("Create your first project")

	owner := newTab(t, h.URL)
	signUp(owner, "boss@example.com", "Team")
	owner.click(`//nav[@aria-label="Main"]//a[.="Settings"]`)
	owner.typeInto("Add a member by email", "member@example.com")
	owner.click(button("Add member"))
	owner.waitJS(`[...document.querySelectorAll('td')].some((td) => td.textContent === 'member@example.com')`, 5*time.Second)
	for _, s := range []string{"Regenerate keys", "Danger zone", "Change limits"} {
		owner.waitText(s)
	}

	member.open("/app/")
	member.waitJS(pickerIs("Team"), 10*time.Second)
	member.click(`//nav[@aria-label="Main"]//a[.="Settings"]`)
	member.waitText("Security health")
	member.waitText("MEMBER")
	text := member.eval(`document.querySelector('main').innerText`)
	for _, hidden := range []string{"Regenerate keys", "Secret key", "Danger zone", "Change limits", "Add a member", "Project name", "Open and click tracking"} {
		if strings.Contains(text, hidden) {
			t.Errorf("a MEMBER sees %q", hidden)
		}
	}
	if n := member.eval(`String(document.querySelectorAll('main select, main input').length)`); n != "0" {
		t.Errorf("a MEMBER has %s controls on Settings", n)
	}
}
