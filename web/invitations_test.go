package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/web/webtest"
)

type invitationJSON struct {
	UserID    *string `json:"userId"`
	Email     string  `json:"email"`
	Role      string  `json:"role"`
	Invited   bool    `json:"invited"`
	CreatedAt string  `json:"createdAt"`
	ExpiresAt string  `json:"expiresAt"`
	Mailed    bool    `json:"mailed"`
	InviteURL *string `json:"inviteUrl"`
}

// operatorTeam is an installation in a mode with its administrator (made
// by the CLI) logged in, owning a project.
func operatorTeam(t *testing.T, o webtest.Options) (*webtest.Env, *browser, projectJSON) {
	t.Helper()
	e := webtest.New(t, o)
	if _, err := e.App.Accounts.CreateUser(context.Background(), "op@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	op := login(t, e, "op@example.com")
	return e, op, op.newProject("Newsletter")
}

func invite(t *testing.T, b *browser, projectID, email, role string) invitationJSON {
	t.Helper()
	body := map[string]any{"email": email}
	if role != "" {
		body["role"] = role
	}
	r := b.write("POST", "/projects/"+projectID+"/members", body)
	expectStatus(t, r, 201)
	var inv invitationJSON
	r.Decode(t, &inv)
	return inv
}

// tokenOf is the inviteToken of an invitation link.
func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path != "/app/signup" || u.Query().Get("inviteToken") == "" {
		t.Fatalf("invitation link %q", link)
	}
	return u.Query().Get("inviteToken")
}

func signupInvited(e *webtest.Env, email, token string) webtest.Response {
	return e.Do("POST", "/auth/signup", "", map[string]any{"email": email, "password": testPassword, "inviteToken": token})
}

// HERALD_SIGNUPS=invite: POST /projects/{id}/members with an email that
// has no account answers an invitation; its link, valid 7 days, makes the
// account (verified) and the membership with the role, once, and only
// for that email.
func TestInvitationMakesTheAccountAndMembership(t *testing.T) {
	e, op, p := operatorTeam(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsInvite}})
	inv := invite(t, op, p.ID, "New@Example.com", "ADMIN")
	if inv.UserID != nil || inv.Email != "new@example.com" || inv.Role != "ADMIN" || !inv.Invited || inv.Mailed ||
		inv.InviteURL == nil || inv.CreatedAt != "2026-01-15T12:00:00Z" || inv.ExpiresAt != "2026-01-22T12:00:00Z" {
		t.Fatalf("invitation %+v", inv)
	}
	link := *inv.InviteURL
	if !strings.HasPrefix(link, "http://herald.test/app/signup?inviteToken=") {
		t.Fatalf("link %q", link)
	}
	token := tokenOf(t, link)

	r := op.do("GET", "/projects/"+p.ID+"/invitations", nil)
	expectStatus(t, r, 200)
	var open []invitationJSON
	r.Decode(t, &open)
	if len(open) != 1 || open[0].Email != "new@example.com" || open[0].InviteURL != nil {
		t.Fatalf("open invitations %s", r.Body)
	}

	// Refusals keep the invitation usable: another email, a bad token,
	// a short password.
	expectField(t, signupInvited(e, "other@example.com", token), "email", "invitation_mismatch")
	expectError(t, signupInvited(e, "new@example.com", token+"x"), 400, "INVALID_TOKEN")
	expectError(t, signupInvited(e, "new@example.com", ""), 400, "INVALID_TOKEN")
	expectField(t, e.Do("POST", "/auth/signup", "", map[string]any{"email": "new@example.com", "password": "short", "inviteToken": token}), "password", "too_small")
	// Without the token, the mode refuses.
	expectError(t, e.Do("POST", "/auth/signup", "", signupBody("new@example.com")), 403, "SIGNUPS_DISABLED")

	r = signupInvited(e, "NEW@example.com", token)
	expectStatus(t, r, 200)
	v, _ := sessionFrom(t, r)
	newcomer := &browser{t: t, e: e, cookie: v}
	me := meOf(t, newcomer)
	if me["email"] != "new@example.com" || me["emailVerified"] != true || me["admin"] != false {
		t.Fatalf("me %v", me)
	}
	r = newcomer.do("GET", "/users/@me/projects", nil)
	var ps []projectJSON
	r.Decode(t, &ps)
	if len(ps) != 1 || ps[0].ID != p.ID || ps[0].Role != "ADMIN" {
		t.Fatalf("projects of the invited user %s", r.Body)
	}
	// Once.
	expectError(t, signupInvited(e, "new@example.com", token), 400, "INVALID_TOKEN")
	if r := op.do("GET", "/projects/"+p.ID+"/invitations", nil); arrayLen(t, r) != 0 {
		t.Errorf("open invitations after it was taken: %s", r.Body)
	}
	// The email now has an account: adding it again is the member rule.
	expectError(t, op.write("POST", "/projects/"+p.ID+"/members", map[string]any{"email": "new@example.com"}), 409, "CONFLICT")
}

// An invitation lasts 7 days.
func TestInvitationExpiresAfterSevenDays(t *testing.T) {
	e, op, p := operatorTeam(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsInvite}})
	token := tokenOf(t, *invite(t, op, p.ID, "late@example.com", "").InviteURL)
	e.Clock.Advance(accounts.InvitationTTL)
	expectError(t, signupInvited(e, "late@example.com", token), 400, "INVALID_TOKEN")
}

// In the first and open modes an invitation works too: it always lets the
// invited email in (only HERALD_DISABLE_SIGNUPS=true refuses it).
func TestInvitationWorksInEveryModeButClosed(t *testing.T) {
	for _, mode := range []string{accounts.SignupsFirst, accounts.SignupsOpen} {
		t.Run(mode, func(t *testing.T) {
			e, op, p := operatorTeam(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: mode}})
			token := tokenOf(t, *invite(t, op, p.ID, "guest@example.com", "MEMBER").InviteURL)
			r := signupInvited(e, "guest@example.com", token)
			expectStatus(t, r, 200)
			members := op.do("GET", "/projects/"+p.ID+"/members", nil)
			if !strings.Contains(string(members.Body), `"email":"guest@example.com","role":"MEMBER"`) {
				t.Fatalf("members %s", members.Body)
			}
		})
	}
}

// With platform mail, the link goes to the invited email (and not to the
// inviter); following it verifies the email as it makes the account.
func TestInvitationIsMailed(t *testing.T) {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{Signups: accounts.SignupsInvite,
		SystemFrom: "Herald <no-reply@herald.test>"}})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.com")
	if _, err := e.App.Accounts.CreateUser(context.Background(), "op@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	op := login(t, e, "op@example.com")
	p := op.newProject("Newsletter")
	inv := invite(t, op, p.ID, "friend@example.com", "")
	if !inv.Mailed || inv.InviteURL != nil {
		t.Fatalf("invitation %+v", inv)
	}
	re := regexp.MustCompile(`http://herald\.test/app/signup\?inviteToken=([A-Za-z0-9_-]{43})"`)
	var token string
	deadline := time.Now().Add(10 * time.Second)
	for token == "" && time.Now().Before(deadline) {
		for _, m := range e.Sink.Messages() {
			if len(m.To) == 1 && m.To[0] == "friend@example.com" {
				body := htmlPart(t, m.Data)
				if match := re.FindStringSubmatch(body); match != nil && strings.Contains(body, "Newsletter") &&
					strings.Contains(body, "op@example.com") {
					token = match[1]
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if token == "" {
		t.Fatal("no invitation mail to friend@example.com")
	}
	r := signupInvited(e, "friend@example.com", token)
	expectStatus(t, r, 200)
	v, _ := sessionFrom(t, r)
	if me := meOf(t, &browser{t: t, e: e, cookie: v}); me["emailVerified"] != true {
		t.Fatalf("me %v", me)
	}
}

// Who may invite, and the bounds: an ADMIN invites, but not an OWNER; a
// MEMBER does not; 3 invitations of one email per project and hour;
// withdrawing ends the link.
func TestInvitationRules(t *testing.T) {
	e, op, p := operatorTeam(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsInvite}})
	ctx := context.Background()
	for _, email := range []string{"admin@example.com", "member@example.com"} {
		if _, err := e.App.Accounts.CreateUser(ctx, email, testPassword); err != nil {
			t.Fatal(err)
		}
	}
	op.addMember(p.ID, "admin@example.com", "ADMIN")
	op.addMember(p.ID, "member@example.com", "MEMBER")
	admin, member := login(t, e, "admin@example.com"), login(t, e, "member@example.com")
	path := "/projects/" + p.ID + "/members"

	expectError(t, admin.write("POST", path, map[string]any{"email": "boss@example.com", "role": "OWNER"}), 403, "FORBIDDEN")
	expectError(t, member.write("POST", path, map[string]any{"email": "x@example.com"}), 403, "FORBIDDEN")
	first := tokenOf(t, *invite(t, admin, p.ID, "x@example.com", "").InviteURL)
	invite(t, admin, p.ID, "x@example.com", "")
	invite(t, admin, p.ID, "x@example.com", "")
	r := admin.write("POST", path, map[string]any{"email": "x@example.com"})
	expectError(t, r, 429, "RATE_LIMIT_EXCEEDED")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	// A MEMBER reads the open invitations; withdrawing takes an ADMIN.
	if r := member.do("GET", "/projects/"+p.ID+"/invitations", nil); arrayLen(t, r) != 3 {
		t.Fatalf("open invitations %s", r.Body)
	}
	expectError(t, member.write("DELETE", "/projects/"+p.ID+"/invitations/x@example.com", nil), 403, "FORBIDDEN")
	expectStatus(t, admin.write("DELETE", "/projects/"+p.ID+"/invitations/X@example.com", nil), 204)
	expectError(t, admin.write("DELETE", "/projects/"+p.ID+"/invitations/x@example.com", nil), 404, "NOT_FOUND")
	expectError(t, signupInvited(e, "x@example.com", first), 400, "INVALID_TOKEN")
	// The withdrawn ones still count: the hour's cap stays.
	expectError(t, admin.write("POST", path, map[string]any{"email": "x@example.com"}), 429, "RATE_LIMIT_EXCEEDED")
	e.Clock.Advance(time.Hour)
	invite(t, admin, p.ID, "x@example.com", "")
}

// A project's reset keeps its open invitations, as it keeps its members.
func TestResetKeepsInvitations(t *testing.T) {
	e, op, p := operatorTeam(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{Signups: accounts.SignupsInvite}})
	token := tokenOf(t, *invite(t, op, p.ID, "kept@example.com", "").InviteURL)
	expectStatus(t, op.write("POST", "/users/@me/projects/"+p.ID+"/reset", nil), 200)
	expectStatus(t, signupInvited(e, "kept@example.com", token), 200)
}
