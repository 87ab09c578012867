package dashboard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Add a domain on the Domains page, publish its DKIM record, "Check now"
// and see it verified.
func TestBrowser_AddDomainAndSeeItVerified(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "dns@example.com", "DNS")
	tb.click(`//nav[@aria-label="Main"]//a[.="Domains"]`)
	tb.typeInto("Sender domain", "ex.org")
	tb.click(button("Add domain"))
	tb.waitText("ex.org")
	tb.waitText("Pending")
	if n := tb.eval(`String(document.querySelectorAll('table.records button').length)`); n == "0" {
		t.Fatal("no copy buttons beside the records")
	}
	var ds []domainJSON
	tb.fetchJSON("/domains/project/"+tb.currentProject().ID, &ds)
	if len(ds) != 1 {
		t.Fatalf("domains: %+v", ds)
	}
	// The DKIM record as the page shows it is the one to publish.
	for _, r := range ds[0].Records {
		if r.Type == "TXT" && strings.Contains(r.Name, "._domainkey.") {
			tb.waitJS(`[...document.querySelectorAll('code')].some((c) => c.textContent === `+jsq(r.Value)+`)`, 2*time.Second)
		}
	}
	h.publishDKIM(t, ds[0])
	tb.click(button("Check now"))
	tb.waitJS(`[...document.querySelectorAll('.badge')].some((b) => b.textContent === 'Verified')`, 10*time.Second)
}

// Import a CSV: the progress bar reaches the end, the counts and the
// rejected rows with their numbers are shown.
func TestBrowser_ImportCSVToTheEnd(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "csv@example.com", "CSV")
	var b strings.Builder
	b.WriteString("email,firstName,plan\n")
	for i := range 3000 {
		if i == 1500 {
			b.WriteString("not-an-email,Bad,free\n")
		}
		fmt.Fprintf(&b, "user%d@example.net,User %d,pro\n", i, i)
	}
	file := filepath.Join(t.TempDir(), "contacts.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.click(`//nav[@aria-label="Main"]//a[.="Contacts"]`)
	tb.click(button("Import CSV"))
	tb.waitText("Import contacts")
	tb.do(chromedp.SetUploadFiles(field("CSV file"), []string{file}))
	tb.click(button("Import"))
	tb.waitJS(`document.body.innerText.includes('Import finished')`, 30*time.Second)
	tb.waitJS(`document.querySelector('progress') && document.querySelector('progress').value === 100`, 2*time.Second)
	tb.waitText("3,000 created, 0 updated, 1 rejected.")
	tb.waitJS(`[...document.querySelectorAll('td')].some((td) => td.textContent === '1502')`, 2*time.Second)
	tb.click(`//a[normalize-space()="← Contacts"]`)
	tb.waitText("3,000 contacts")
}

// Edit a contact's data: a number stays a number, a boolean a boolean, a
// removed key is gone; the subscription toggle shows in the timeline.
func TestBrowser_EditContact(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "edit@example.com", "Edit")
	key := *tb.currentProject().Secret
	var c struct {
		ID string `json:"id"`
	}
	mustCall(t, h, key, "POST", "/contacts", map[string]any{"email": "ada@example.net",
		"data": map[string]any{"plan": "pro", "seats": 3, "vip": true}}, &c)

	tb.click(`//nav[@aria-label="Main"]//a[.="Contacts"]`)
	tb.typeInto("Search by email", "ada@")
	tb.click(`//a[.="ada@example.net"]`)
	tb.waitText("Data")
	tb.typeAt(`//input[@aria-label="Value of seats"]`, "5")
	tb.click(button("Remove plan"))
	tb.click(button("Add key"))
	tb.do(chromedp.SendKeys(`(//input[starts-with(@aria-label,"Key ")])[last()]`, "city"))
	tb.do(chromedp.SendKeys(`(//input[starts-with(@aria-label,"Value of ")])[last()]`, "Oslo"))
	tb.click(button("Save data"))
	tb.waitText("Saved")

	var got struct {
		Subscribed bool           `json:"subscribed"`
		Data       map[string]any `json:"data"`
	}
	mustCall(t, h, key, "GET", "/contacts/"+c.ID, nil, &got)
	if got.Data["seats"] != 5.0 || got.Data["vip"] != true || got.Data["city"] != "Oslo" || got.Data["plan"] != nil {
		t.Fatalf("data after the edit: %#v", got.Data)
	}
	tb.click(button("Unsubscribe"))
	tb.waitJS(`[...document.querySelectorAll('.feed .badge')].some((b) => b.textContent === 'Unsubscribed')`, 5*time.Second)
	mustCall(t, h, key, "GET", "/contacts/"+c.ID, nil, &got)
	if got.Subscribed {
		t.Fatal("still subscribed")
	}
}

// Build a segment with a nested OR group and see the live count, then save
// it and see its members.
func TestBrowser_SegmentWithNestedGroup(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	signUp(tb, "seg@example.com", "Segments")
	key := *tb.currentProject().Secret
	people := []map[string]any{
		{"email": "a@example.net", "data": map[string]any{"plan": "pro", "country": "NO"}},
		{"email": "b@example.net", "data": map[string]any{"plan": "pro", "country": "SE"}},
		{"email": "c@example.net", "data": map[string]any{"plan": "pro", "country": "DE"}},
		{"email": "d@example.net", "data": map[string]any{"plan": "free", "country": "NO"}},
	}
	for _, p := range people {
		mustCall(t, h, key, "POST", "/contacts", p, nil)
	}
	tb.click(`//nav[@aria-label="Main"]//a[.="Segments"]`)
	tb.click(button("New segment"))
	tb.typeInto("Name", "Nordic pros")
	// plan equals pro
	tb.chooseAt(`(//label[.="Field"]/following-sibling::select[1])[1]`, "data")
	tb.do(chromedp.SendKeys(`(//input[@placeholder="key"])[1]`, "plan"))
	tb.chooseAt(`(//label[.="Operator"]/following-sibling::select[1])[1]`, "equals")
	tb.do(chromedp.SendKeys(`(//label[.="Value"]/following-sibling::input[1])[1]`, "pro"))
	tb.waitJS(`(document.querySelector('.live-count strong')||{}).textContent === '3'`, 5*time.Second)
	// and (country is NO or country is SE)
	tb.click(button("Add nested group"))
	tb.chooseAt(`(//label[.="Field"]/following-sibling::select[1])[2]`, "data")
	tb.do(chromedp.SendKeys(`(//input[@placeholder="key"])[2]`, "country"))
	tb.chooseAt(`(//label[.="Operator"]/following-sibling::select[1])[2]`, "equals")
	tb.do(chromedp.SendKeys(`(//label[.="Value"]/following-sibling::input[1])[2]`, "NO"))
	tb.click(`(//div[contains(@class,"depth1")]//button[.="Add group"])[1]`)
	tb.chooseAt(`(//label[.="Field"]/following-sibling::select[1])[3]`, "data")
	tb.do(chromedp.SendKeys(`(//input[@placeholder="key"])[3]`, "country"))
	tb.chooseAt(`(//label[.="Operator"]/following-sibling::select[1])[3]`, "equals")
	tb.do(chromedp.SendKeys(`(//label[.="Value"]/following-sibling::input[1])[3]`, "SE"))
	tb.waitJS(`(document.querySelector('.live-count strong')||{}).textContent === '2'`, 5*time.Second)
	tb.click(button("Create segment"))
	tb.waitText("Members")
	tb.waitText("2 members now")
	tb.waitJS(`[...document.querySelectorAll('td a')].map((a) => a.textContent).sort().join() === 'a@example.net,b@example.net'`, 5*time.Second)
}
