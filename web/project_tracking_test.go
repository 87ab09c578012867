package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// A project's tracking setting decides which mail carries tracking:
// ENABLED all, MARKETING_ONLY campaign mail only, DISABLED none.
func TestProjectTrackingSetting(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	owner := ownEnvProject(t, e, "owner@example.com")
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.com")
	body := `<p><a href="https://example.com/x">x</a></p>`
	send := func(to string) string {
		t.Helper()
		expectStatus(t, e.Secret("POST", "/v1/send", map[string]any{"to": to, "from": "a@herald.test", "subject": "s", "body": body}), 200)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for _, m := range e.Sink.Messages() {
				if m.To[0] == to {
					return htmlPart(t, m.Data)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no mail to %s", to)
		return ""
	}
	if html := send("enabled@example.com"); clickLink.FindString(html) == "" {
		t.Errorf("ENABLED: no tracking in %s", html)
	}
	for _, mode := range []string{"MARKETING_ONLY", "DISABLED"} {
		expectStatus(t, owner.write("PATCH", "/users/@me/projects/"+e.Project.ID, map[string]any{"tracking": mode}), 200)
		if html := send(strings.ToLower(mode) + "@example.com"); clickLink.FindString(html) != "" || openPixel.FindString(html) != "" {
			t.Errorf("%s: transactional mail tracked: %s", mode, html)
		}
	}
}
