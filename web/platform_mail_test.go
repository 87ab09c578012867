package web_test

import (
	"bytes"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/web/webtest"
)

// systemMailEnv is a Herald with HERALD_SYSTEM_FROM on a verified domain,
// delivering to the sink for example.com.
func systemMailEnv(t *testing.T) *webtest.Env {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{SystemFrom: "Herald <no-reply@herald.test>"}})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.com")
	return e
}

// mailTo waits for the nth message (1-based) to an address and returns
// the token of its link to path.
func mailTo(t *testing.T, e *webtest.Env, to, path string, nth int) (smtptest.Received, string) {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta("http://herald.test"+path+"?token=") + `([0-9a-f]{64})"`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, m := range e.Sink.Messages() {
			if len(m.To) != 1 || m.To[0] != to {
				continue
			}
			match := re.FindStringSubmatch(htmlPart(t, m.Data))
			if match == nil {
				continue
			}
			if n++; n == nth {
				return m, match[1]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no mail #%d to %s", nth, to)
	return smtptest.Received{}, ""
}

func mailsTo(e *webtest.Env, to string) int {
	n := 0
	for _, m := range e.Sink.Messages() {
		if len(m.To) == 1 && m.To[0] == to {
			n++
		}
	}
	return n
}

func TestEmailVerification(t *testing.T) {
	e := systemMailEnv(t)
	var cfg map[string]any
	e.Do("GET", "/config", "", nil).Decode(t, &cfg)
	if cfg["systemMail"] != true {
		t.Errorf("/config %v", cfg)
	}
	ada := signupUser(t, e, "ada@example.com")
	r := ada.do("GET", "/users/@me", nil)
	expectStatus(t, r, 200)
	if r.JSON()["emailVerified"] != false {
		t.Fatalf("me %s", r.Body)
	}
	// Till verified: only /auth/* and GET /users/@me.
	expectError(t, ada.do("GET", "/users/@me/projects", nil), 403, "EMAIL_NOT_VERIFIED")
	expectError(t, ada.write("POST", "/users/@me/projects", map[string]any{"name": "x"}), 403, "EMAIL_NOT_VERIFIED")
	expectError(t, ada.in(e.Project.ID, "GET", "/contacts", nil), 403, "EMAIL_NOT_VERIFIED")

	m, token := mailTo(t, e, "ada@example.com", "/app/verify-email", 1)
	verifyDKIM(t, e, m.Data)
	if msg, err := mail.ReadMessage(bytes.NewReader(m.Data)); err != nil || msg.Header.Get("From") != `"Herald" <no-reply@herald.test>` {
		t.Errorf("From: %q %v", msg.Header.Get("From"), err)
	}
	expectError(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": strings.Repeat("0", 64)}), 400, "INVALID_TOKEN")
	expectError(t, e.Do("POST", "/auth/verify-email", "", map[string]any{}), 400, "INVALID_TOKEN")
	r = e.Do("POST", "/auth/verify-email", "", map[string]any{"token": token})
	expectStatus(t, r, 200)
	if r.JSON()["success"] != true {
		t.Errorf("verify %s", r.Body)
	}
	expectError(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": token}), 400, "INVALID_TOKEN")
	expectStatus(t, ada.do("GET", "/users/@me/projects", nil), 200)

	// Resends: at most 3 an hour per user and kind, the signup's included.
	bob := signupUser(t, e, "bob@example.com")
	for range 4 {
		expectStatus(t, bob.do("POST", "/auth/request-verification", nil), 200)
	}
	mailTo(t, e, "bob@example.com", "/app/verify-email", 3)
	// Expired after 24 hours.
	_, old := mailTo(t, e, "bob@example.com", "/app/verify-email", 2)
	deliveriesDone(t, e)
	e.Clock.Advance(24*time.Hour + time.Second)
	expectError(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": old}), 400, "INVALID_TOKEN")
	expectStatus(t, e.Do("POST", "/auth/request-verification", "", map[string]any{"email": "bob@example.com"}), 200)
	_, fresh := mailTo(t, e, "bob@example.com", "/app/verify-email", 4)
	expectStatus(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": fresh}), 200)
	if n := mailsTo(e, "bob@example.com"); n != 4 {
		t.Errorf("bob got %d mails, want 4 (3 in the first hour, 1 after)", n)
	}

	// Platform mail is no usage, contact or event of any project.
	owner := ownEnvProject(t, e, "owner@example.com")
	_, tok := mailTo(t, e, "owner@example.com", "/app/verify-email", 1)
	expectStatus(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": tok}), 200)
	r = owner.do("GET", "/users/@me/projects/"+e.Project.ID+"/billing-consumption", nil)
	if r.JSON()["total"] != float64(0) {
		t.Errorf("platform mail counted: %s", r.Body)
	}
	r = e.Secret("GET", "/contacts", nil)
	if r.JSON()["total"] != float64(0) {
		t.Errorf("platform mail made contacts: %s", r.Body)
	}
	if n := arrayLen(t, owner.do("GET", "/users/@me/projects", nil)); n != 1 {
		t.Errorf("the system project shows: %d projects", n)
	}
}

func TestPasswordReset(t *testing.T) {
	e := systemMailEnv(t)
	ada := signupUser(t, e, "ada@example.com")
	expectField(t, e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": "nope"}), "email", "invalid_string")
	for _, email := range []string{"nobody@example.com", "ADA@example.com"} {
		r := e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": email})
		expectStatus(t, r, 200)
		if r.JSON()["success"] != true {
			t.Errorf("%s: %s", email, r.Body)
		}
	}
	_, token := mailTo(t, e, "ada@example.com", "/app/reset-password", 1)
	if mailsTo(e, "nobody@example.com") != 0 {
		t.Error("mail to an unknown user")
	}
	// A 422 keeps the token.
	expectField(t, e.Do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "short"}), "newPassword", "too_small")
	expectError(t, e.Do("POST", "/auth/reset-password", "", map[string]any{"token": "abc", "newPassword": "long enough 1"}), 400, "INVALID_TOKEN")
	expectStatus(t, e.Do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "long enough 1"}), 200)
	expectError(t, e.Do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "long enough 2"}), 400, "INVALID_TOKEN")
	// Every session ended; the email is verified; the new password works.
	expectError(t, ada.do("GET", "/users/@me", nil), 401, "UNAUTHORIZED")
	r := e.Do("POST", "/auth/login", "", map[string]any{"email": "ada@example.com", "password": "long enough 1"})
	expectStatus(t, r, 200)
	ada.cookie, _ = sessionFrom(t, r)
	if ada.do("GET", "/users/@me", nil).JSON()["emailVerified"] != true {
		t.Error("a reset did not verify the email")
	}
	// A reset link lasts an hour.
	expectStatus(t, e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": "ada@example.com"}), 200)
	_, token = mailTo(t, e, "ada@example.com", "/app/reset-password", 2)
	deliveriesDone(t, e)
	e.Clock.Advance(time.Hour + time.Second)
	expectError(t, e.Do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "long enough 3"}), 400, "INVALID_TOKEN")
}

// Without a verified domain for HERALD_SYSTEM_FROM, or without it, users
// are verified at signup and no mail goes out.
func TestNoPlatformMailWithoutAVerifiedSender(t *testing.T) {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{SystemFrom: "no-reply@unverified.example"}})
	e.RouteMail("example.com")
	ada := signupUser(t, e, "ada@example.com")
	if ada.do("GET", "/users/@me", nil).JSON()["emailVerified"] != true {
		t.Error("not verified at signup")
	}
	expectStatus(t, e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": "ada@example.com"}), 200)
	expectStatus(t, ada.do("GET", "/users/@me/projects", nil), 200)
	if n := e.Sink.Count(); n != 0 {
		t.Errorf("%d mails sent", n)
	}
}

// deliveriesDone waits until no delivery job is queued or running, so
// that moving the fake clock cannot expire a lease and deliver twice.
func deliveriesDone(t *testing.T, e *webtest.Env) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := e.DB.Reader().QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE kind = ? AND state IN ('queued', 'active')`,
			messaging.JobDeliver).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("deliveries still running")
}
