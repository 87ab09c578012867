package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/web/webtest"
)

func TestSignupSetsTheContractCookieAndMakesNoProject(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	r := e.Do("POST", "/auth/signup", "", map[string]any{"email": "  Ada@Example.COM ", "password": "12345678"})
	expectStatus(t, r, 200)
	var body struct {
		Success bool
		Data    struct{ ID, Email string }
	}
	r.Decode(t, &body)
	if !body.Success || body.Data.ID == "" || body.Data.Email != "ada@example.com" {
		t.Fatalf("body %s", r.Body)
	}
	value, raw := sessionFrom(t, r)
	if want := "herald_session=" + value + "; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax"; raw != want {
		t.Errorf("cookie %q\nwant   %q", raw, want)
	}
	if len(value) != 43 { // 32 bytes, base64url without padding
		t.Errorf("token %q is not 32 bytes of base64url", value)
	}
	b := &browser{t: t, e: e, cookie: value}
	r = b.do("GET", "/users/@me/projects", nil)
	expectStatus(t, r, 200)
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Errorf("signup made a project: %s", r.Body)
	}
	r = b.do("GET", "/users/@me", nil)
	expectStatus(t, r, 200)
	var me map[string]any
	r.Decode(t, &me)
	// The first user is the installation's administrator, who also gets
	// its warnings (safe_defaults_test.go).
	if me["id"] != body.Data.ID || me["email"] != "ada@example.com" || me["emailVerified"] != true || me["createdAt"] == nil ||
		me["admin"] != true || me["warnings"] == nil || len(me) != 6 {
		t.Errorf("GET /users/@me = %s", r.Body)
	}

	// Same email, any case: 409 EMAIL_TAKEN.
	expectError(t, e.Do("POST", "/auth/signup", "", map[string]any{"email": "ADA@example.com", "password": "12345678"}), 409, "EMAIL_TAKEN")
}

func TestSignupValidatesInput(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	long := strings.Repeat("a", 250) + "@example.com"
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"email": "x@example.com", "password": "1234567"}, "password"},
		{map[string]any{"email": "x@example.com", "password": strings.Repeat("p", 257)}, "password"},
		{map[string]any{"email": "x@example.com"}, "password"},
		{map[string]any{"email": "not-an-email", "password": "12345678"}, "email"},
		{map[string]any{"email": long, "password": "12345678"}, "email"},
		{map[string]any{"password": "12345678"}, "email"},
	} {
		r := e.Do("POST", "/auth/signup", "", tc.body)
		env := expectError(t, r, 422, "VALIDATION_ERROR")
		if len(env.Error.Errors) == 0 || env.Error.Errors[0].Field != tc.field {
			t.Errorf("%v: %s", tc.body, r.Body)
		}
	}
	// 256 characters (not bytes) is the most.
	r := e.Do("POST", "/auth/signup", "", map[string]any{"email": "y@example.com", "password": strings.Repeat("é", 256)})
	expectStatus(t, r, 200)
	r = e.Do("POST", "/auth/login", "", map[string]any{"email": "y@example.com", "password": strings.Repeat("é", 256)})
	expectStatus(t, r, 200)
	expectError(t, e.Do("POST", "/auth/signup", "", "{"), 400, "VALIDATION_ERROR")
}

func TestSecureCookieWhenBaseURLIsHTTPS(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, BaseURL: "https://mail.example.com",
		Accounts: accounts.Settings{SessionTTL: 2 * time.Hour}})
	r := e.Do("POST", "/auth/signup", "", map[string]any{"email": "s@example.com", "password": "12345678"})
	expectStatus(t, r, 200)
	value, raw := sessionFrom(t, r)
	if want := "herald_session=" + value + "; Path=/; Max-Age=7200; HttpOnly; SameSite=Lax; Secure"; raw != want {
		t.Errorf("cookie %q\nwant   %q", raw, want)
	}
}

func TestSignupsDisabled(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{DisableSignups: true}})
	// Before any check: even a malformed body gets the 403.
	for _, body := range []any{map[string]any{"email": "a@example.com", "password": "12345678"}, "{", map[string]any{}} {
		expectError(t, e.Do("POST", "/auth/signup", "", body), 403, "SIGNUPS_DISABLED")
	}
	expectError(t, e.Do("POST", "/auth/signup", "", "{", "Origin", "https://evil.example"), 403, "SIGNUPS_DISABLED")
	var cfg map[string]any
	e.Do("GET", "/config", "", nil).Decode(t, &cfg)
	if cfg["signupsEnabled"] != false || cfg["features"].(map[string]any)["signups"] != false {
		t.Errorf("/config %v", cfg)
	}
	// The operator's way still works, verified.
	u, err := e.App.Accounts.CreateUser(t.Context(), "op@example.com", "12345678")
	if err != nil || !u.EmailVerified {
		t.Fatalf("CreateUser: %+v %v", u, err)
	}
	expectStatus(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "OP@example.com", "password": "12345678"}), 200)
}

func TestConfigAndOAuthConfig(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	var cfg map[string]any
	r := e.Do("GET", "/config", "", nil)
	expectStatus(t, r, 200)
	r.Decode(t, &cfg)
	if cfg["signupsEnabled"] != true || cfg["systemMail"] != false || cfg["billing"] != false ||
		cfg["features"].(map[string]any)["signups"] != true {
		t.Errorf("/config %s", r.Body)
	}
	if o, ok := cfg["oauth"].(map[string]any); !ok || o["github"] != false || o["google"] != false || len(o) != 2 {
		t.Errorf("/config oauth %s", r.Body)
	}
	r = e.Do("GET", "/auth/oauth-config", "", nil)
	expectStatus(t, r, 200)
	if got := strings.TrimSpace(string(r.Body)); got != `{"success":true,"data":{"github":false,"google":false}}` {
		t.Errorf("oauth-config %s", got)
	}
}

func TestLoginWrongEmailAndWrongPasswordLookAlike(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	signupUser(t, e, "known@example.com")
	wrongPw := e.Do("POST", "/auth/login", "", map[string]any{"email": "known@example.com", "password": "wrong password"})
	unknown := e.Do("POST", "/auth/login", "", map[string]any{"email": "nobody@example.com", "password": "wrong password"})
	a, b := expectError(t, wrongPw, 401, "INVALID_CREDENTIALS"), expectError(t, unknown, 401, "INVALID_CREDENTIALS")
	if a.Error.Message != b.Error.Message || len(wrongPw.Body) != len(unknown.Body) {
		t.Errorf("bodies differ:\n%s\n%s", wrongPw.Body, unknown.Body)
	}
	if len(wrongPw.Header.Values("Set-Cookie")) != 0 {
		t.Error("a failed login set a cookie")
	}
	r := e.Do("POST", "/auth/login", "", map[string]any{"email": " KNOWN@example.com", "password": testPassword})
	expectStatus(t, r, 200)
	if got := r.JSON()["data"].(map[string]any)["email"]; got != "known@example.com" {
		t.Errorf("login data %s", r.Body)
	}
	v, _ := sessionFrom(t, r)
	expectStatus(t, (&browser{t: t, e: e, cookie: v}).do("GET", "/users/@me", nil), 200)
}

func TestLoginLockout(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	signupUser(t, e, "lock@example.com")
	login := func(email, pw string) webtest.Response {
		return e.Do("POST", "/auth/login", "", map[string]any{"email": email, "password": pw})
	}
	for i := range 10 {
		expectError(t, login("lock@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
		if i == 0 {
			e.Clock.Advance(time.Minute) // the first failure is a minute older than the rest
		}
	}
	// Locked: even the right password gets 429, till the oldest failure
	// leaves the 15 minute window.
	r := login("lock@example.com", testPassword)
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if got := r.Header.Get("Retry-After"); got != "840" {
		t.Errorf("Retry-After %q, want 840", got)
	}
	for range 5 { // 429s do not count
		expectError(t, login("lock@example.com", "wrong password"), 429, "RATE_LIMIT_EXCEEDED")
	}
	e.Clock.Advance(14 * time.Minute)
	// The oldest failure has left: one more try is allowed; the right
	// password succeeds and resets the count.
	expectStatus(t, login("lock@example.com", testPassword), 200)
	for range 9 {
		expectError(t, login("lock@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
	}
	expectStatus(t, login("lock@example.com", testPassword), 200)

	// Unknown emails lock too, each on its own.
	for range 10 {
		expectError(t, login("ghost@example.com", "x"), 401, "INVALID_CREDENTIALS")
	}
	r = login("ghost@example.com", "x")
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") != "900" {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	expectStatus(t, login("lock@example.com", testPassword), 200)
}

// The lockout holds with rate limits off (webtest's default); the per-IP
// limit of /auth/* applies only when rate limits are on.
func TestAuthPerIPLimit(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, RateLimit: 1000})
	for i := range 60 {
		r := e.Do("GET", "/auth/oauth-config", "", nil)
		if r.Status != 200 {
			t.Fatalf("request %d: %d", i, r.Status)
		}
	}
	r := e.Do("POST", "/auth/login", "", map[string]any{"email": "a@example.com", "password": "x"})
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	e.Clock.Advance(time.Minute)
	expectStatus(t, e.Do("GET", "/auth/oauth-config", "", nil), 200)

	off := webtest.New(t, webtest.Options{NoWorkers: true})
	for i := range 80 {
		if r := off.Do("GET", "/auth/oauth-config", "", nil); r.Status != 200 {
			t.Fatalf("request %d with rate limits off: %d", i, r.Status)
		}
	}
}

func TestSessionLifetimeAndLogout(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{SessionTTL: time.Hour}})
	b := signupUser(t, e, "life@example.com")
	e.Clock.Advance(59 * time.Minute)
	expectStatus(t, b.do("GET", "/users/@me", nil), 200)
	e.Clock.Advance(time.Minute)
	expectError(t, b.do("GET", "/users/@me", nil), 401, "UNAUTHORIZED")

	for _, method := range []string{"GET", "POST"} {
		r := e.Do("POST", "/auth/login", "", map[string]any{"email": "life@example.com", "password": testPassword})
		b.cookie, _ = sessionFrom(t, r)
		r = b.do(method, "/auth/logout", nil)
		expectStatus(t, r, 200)
		if r.JSON()["success"] != true {
			t.Errorf("logout body %s", r.Body)
		}
		if _, raw := sessionFrom(t, r); !strings.Contains(raw, "Max-Age=0") {
			t.Errorf("logout cookie %q", raw)
		}
		expectError(t, b.do("GET", "/users/@me", nil), 401, "UNAUTHORIZED")
	}
	// Without a cookie, logout still answers 200.
	expectStatus(t, e.Do("GET", "/auth/logout", "", nil), 200)
}

func TestPasswordChangeEndsEverySession(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	b := signupUser(t, e, "pw@example.com")
	r := e.Do("POST", "/auth/login", "", map[string]any{"email": "pw@example.com", "password": testPassword})
	other, _ := sessionFrom(t, r)

	r = b.write("POST", "/users/@me/password", map[string]any{"currentPassword": "nope-nope", "newPassword": "new password 1"})
	expectField(t, r, "currentPassword", "invalid_password")
	expectField(t, b.write("POST", "/users/@me/password", map[string]any{"currentPassword": testPassword, "newPassword": "short"}),
		"newPassword", "too_small")
	// Without the CSRF header, a cookie write is refused.
	expectError(t, b.do("POST", "/users/@me/password", map[string]any{"currentPassword": testPassword, "newPassword": "new password 1"}),
		400, "BAD_REQUEST")

	r = b.write("POST", "/users/@me/password", map[string]any{"currentPassword": testPassword, "newPassword": "new password 1"})
	expectStatus(t, r, 200)
	fresh, raw := sessionFrom(t, r)
	if !strings.Contains(raw, "Max-Age=604800") || fresh == b.cookie {
		t.Errorf("new cookie %q", raw)
	}
	expectError(t, b.do("GET", "/users/@me", nil), 401, "UNAUTHORIZED")
	expectError(t, (&browser{t: t, e: e, cookie: other}).do("GET", "/users/@me", nil), 401, "UNAUTHORIZED")
	expectStatus(t, (&browser{t: t, e: e, cookie: fresh}).do("GET", "/users/@me", nil), 200)
	expectError(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "pw@example.com", "password": testPassword}), 401, "INVALID_CREDENTIALS")
	expectStatus(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "pw@example.com", "password": "new password 1"}), 200)
}

// Failed password changes count toward the lockout of the user's email.
func TestFailedPasswordChangesLockLogins(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	b := signupUser(t, e, "pc@example.com")
	for range 10 {
		expectStatus(t, b.write("POST", "/users/@me/password", map[string]any{"currentPassword": "wrong-wrong", "newPassword": "new password 1"}), 422)
	}
	expectError(t, e.Do("POST", "/auth/login", "", map[string]any{"email": "pc@example.com", "password": testPassword}), 429, "RATE_LIMIT_EXCEEDED")
}
