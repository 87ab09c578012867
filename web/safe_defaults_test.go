package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/web/webtest"
)

// Safe defaults on a public port (hardening round three): the first user
// is the administrator, and sign-up closes after them unless the operator
// opens it.

func configOf(t *testing.T, e *webtest.Env) map[string]any {
	t.Helper()
	r := e.Do("GET", "/config", "", nil)
	expectStatus(t, r, 200)
	return r.JSON()
}

func meOf(t *testing.T, b *browser) map[string]any {
	t.Helper()
	r := b.do("GET", "/users/@me", nil)
	expectStatus(t, r, 200)
	return r.JSON()
}

func signupBody(email string) map[string]any {
	return map[string]any{"email": email, "password": testPassword}
}

// The default mode (accounts' zero Settings, HERALD_SIGNUPS's default),
// first: the first sign-up is taken and makes the
// administrator; every later one is 403 SIGNUPS_DISABLED and makes
// nothing; GET /config follows.
func TestFirstSignupMakesTheAdministratorAndClosesSignup(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsFirst}})
	cfg := configOf(t, e)
	if cfg["signupsEnabled"] != true || cfg["signupMode"] != "first" || cfg["features"].(map[string]any)["signups"] != true {
		t.Fatalf("/config before any user: %v", cfg)
	}
	ada := signupUser(t, e, "ada@example.com")
	if me := meOf(t, ada); me["admin"] != true {
		t.Fatalf("first user: %v", me)
	}
	cfg = configOf(t, e)
	if cfg["signupsEnabled"] != false || cfg["features"].(map[string]any)["signups"] != false {
		t.Fatalf("/config after the first user: %v", cfg)
	}
	expectError(t, e.Do("POST", "/auth/signup", "", signupBody("bob@example.com")), 403, "SIGNUPS_DISABLED")
	// Before any check of the body, too.
	expectError(t, e.Do("POST", "/auth/signup", "", map[string]any{"email": "nonsense"}), 403, "SIGNUPS_DISABLED")
	expectError(t, e.Do("POST", "/auth/login", "", signupBody("bob@example.com")), 401, "INVALID_CREDENTIALS")
	if us, _ := e.App.Accounts.ListUsers(context.Background()); len(us) != 1 {
		t.Fatalf("users %+v", us)
	}

	// A user the operator makes is no administrator.
	if _, err := e.App.Accounts.CreateUser(context.Background(), "carol@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	carol := login(t, e, "carol@example.com")
	me := meOf(t, carol)
	if me["admin"] != false {
		t.Fatalf("second user: %v", me)
	}
	if _, ok := me["warnings"]; ok {
		t.Errorf("a user who is not the administrator sees warnings: %v", me)
	}
}

// login logs a user in through the API.
func login(t *testing.T, e *webtest.Env, email string) *browser {
	t.Helper()
	r := e.Do("POST", "/auth/login", "", signupBody(email))
	expectStatus(t, r, 200)
	v, _ := sessionFrom(t, r)
	var body struct{ Data struct{ ID, Email string } }
	r.Decode(t, &body)
	return &browser{t: t, e: e, cookie: v, id: body.Data.ID, email: body.Data.Email}
}

// herald user create makes the first user the administrator, whatever the
// mode; sign-up is closed after it in the default mode.
func TestUserCreateMakesTheFirstAdministrator(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsFirst}})
	ctx := context.Background()
	op, err := e.App.Accounts.CreateUser(ctx, "op@example.com", testPassword)
	if err != nil || !op.Admin {
		t.Fatalf("first CreateUser: %+v %v", op, err)
	}
	if u, err := e.App.Accounts.CreateUser(ctx, "second@example.com", testPassword); err != nil || u.Admin {
		t.Fatalf("second CreateUser: %+v %v", u, err)
	}
	if cfg := configOf(t, e); cfg["signupsEnabled"] != false {
		t.Fatalf("/config: %v", cfg)
	}
	expectError(t, e.Do("POST", "/auth/signup", "", signupBody("x@example.com")), 403, "SIGNUPS_DISABLED")

	// Deleting the administrator passes the role to the oldest user left.
	if err := e.App.Accounts.DeleteUser(ctx, "op@example.com"); err != nil {
		t.Fatal(err)
	}
	if us, _ := e.App.Accounts.ListUsers(ctx); len(us) != 1 || !us[0].Admin {
		t.Fatalf("after deleting the administrator: %+v", us)
	}
}

// HERALD_SIGNUPS=open: everyone signs up, only the first is the
// administrator.
func TestOpenSignups(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsOpen}})
	a, b := signupUser(t, e, "a@example.com"), signupUser(t, e, "b@example.com")
	if meOf(t, a)["admin"] != true || meOf(t, b)["admin"] != false {
		t.Fatalf("admins: %v %v", meOf(t, a), meOf(t, b))
	}
	if cfg := configOf(t, e); cfg["signupsEnabled"] != true || cfg["signupMode"] != "open" {
		t.Fatalf("/config: %v", cfg)
	}
}

// Concurrent first sign-ups: one administrator, and in the default mode
// one account.
func TestConcurrentFirstSignups(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsFirst}})
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = e.Do("POST", "/auth/signup", "", signupBody("u"+string(rune('a'+i))+"@example.com")).Status
		})
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == 200 {
			ok++
		} else if s != 403 {
			t.Errorf("status %d", s)
		}
	}
	us, _ := e.App.Accounts.ListUsers(context.Background())
	if ok != 1 || len(us) != 1 || !us[0].Admin {
		t.Fatalf("%d sign-ups taken, users %+v", ok, us)
	}
}

// HERALD_SIGNUPS=invite: signupsEnabled is false even before the first
// user (who comes from the CLI); a sign-up without an invitation is 403.
func TestInviteModeRefusesSignupWithoutInvitation(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsInvite}})
	if cfg := configOf(t, e); cfg["signupsEnabled"] != false || cfg["signupMode"] != "invite" {
		t.Fatalf("/config: %v", cfg)
	}
	env := expectError(t, e.Do("POST", "/auth/signup", "", signupBody("a@example.com")), 403, "SIGNUPS_DISABLED")
	if !strings.Contains(env.Error.Message, "invitation") {
		t.Errorf("message %q does not say how to get an account", env.Error.Message)
	}
}

// HERALD_DISABLE_SIGNUPS=true stays: no sign-up at all, before any check,
// and POST /projects/{id}/members for an email with no account is 404 as
// it was.
func TestDisableSignupsClosesSignupEntirely(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsOpen, DisableSignups: true}})
	if cfg := configOf(t, e); cfg["signupsEnabled"] != false || cfg["signupMode"] != "closed" {
		t.Fatalf("/config: %v", cfg)
	}
	expectError(t, e.Do("POST", "/auth/signup", "", map[string]any{"inviteToken": "x"}), 403, "SIGNUPS_DISABLED")
	if _, err := e.App.Accounts.CreateUser(context.Background(), "op@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	op := login(t, e, "op@example.com")
	p := op.newProject("P")
	expectError(t, op.write("POST", "/projects/"+p.ID+"/members", map[string]any{"email": "new@example.com"}), 404, "USER_NOT_FOUND")
}

// The administrator's warnings: no system mail, and the configuration's
// (the base URL, bounce handling), which app gives accounts.
func TestAdministratorSeesWarnings(t *testing.T) {
	warnings := []string{"HERALD_BASE_URL \"http://localhost:8080\" is not https", "Bounce handling is off"}
	e := webtest.New(t, webtest.Options{NoWorkers: true, Warnings: warnings})
	ada := signupUser(t, e, "ada@example.com")
	me := meOf(t, ada)
	got, _ := me["warnings"].([]any)
	if len(got) != 3 || got[0] != accounts.WarningNoSystemMail || got[1] != warnings[0] || got[2] != warnings[1] {
		t.Fatalf("warnings %v", me["warnings"])
	}
	// GET /config keeps its own warnings.
	if cfg := configOf(t, e); len(cfg["warnings"].([]any)) != 2 {
		t.Errorf("/config warnings %v", cfg["warnings"])
	}
}

// With HERALD_SYSTEM_FROM set but its domain not verified, the warning
// says so; once verified, it is gone.
func TestAdministratorSeesUnverifiedSystemMail(t *testing.T) {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{SystemFrom: "no-reply@herald.test"}})
	ada := signupUser(t, e, "ada@example.com")
	if w := meOf(t, ada)["warnings"].([]any); len(w) != 1 || w[0] != accounts.WarningSystemMailUnverified {
		t.Fatalf("warnings %v", w)
	}
	verifiedDomain(t, e, "herald.test")
	if w := meOf(t, ada)["warnings"].([]any); len(w) != 0 {
		t.Fatalf("warnings once verified %v", w)
	}
}

// A reset requested while no platform mail can be sent answers as always
// and logs a warning for the operator.
func TestPasswordResetWithoutSystemMailIsLogged(t *testing.T) {
	var buf syncBuffer
	e := webtest.New(t, webtest.Options{NoWorkers: true, Log: slog.New(slog.NewTextHandler(&buf, nil))})
	signupUser(t, e, "ada@example.com")
	for _, email := range []string{"ada@example.com", "nobody@example.com"} {
		r := e.Do("POST", "/auth/request-password-reset", "", map[string]any{"email": email})
		expectStatus(t, r, 200)
	}
	if n := strings.Count(buf.String(), "password reset requested, but no platform mail is configured"); n != 2 {
		t.Fatalf("%d warnings logged:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "level=WARN") {
		t.Errorf("not a warning:\n%s", buf.String())
	}
}

// syncBuffer is a bytes.Buffer the app's goroutines may log into.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
