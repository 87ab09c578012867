package dashboard_test

import (
	"testing"
)

// A visitor with no session gets the login form: an email input, a
// password input, the first-start hint, and no console noise.
func TestBrowser_LoginPage(t *testing.T) {
	h := startHerald(t)
	tb := newTab(t, h.URL)
	tb.open("/")
	tb.waitText("First start?")
	if got := tb.eval(`location.pathname`); got != "/app/login" {
		t.Fatalf("landed on %s", got)
	}
	if got := tb.eval(`[document.querySelector('input[type=email]')?.autocomplete, document.querySelector('input[type=password]') ? 'pw' : ''].join(',')`); got != "username,pw" {
		t.Fatalf("login form: %s", got)
	}
	tb.waitText("herald user create")
}
