package web_test

import (
	"strconv"
	"testing"

	"github.com/heraldmail/herald/storage"

	"github.com/heraldmail/herald/web/webtest"
)

// team is a project with an OWNER, an ADMIN and a MEMBER.
type team struct {
	e                    *webtest.Env
	owner, admin, member *browser
	project              projectJSON
}

func newTeam(t *testing.T) team {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	tm := team{e: e, owner: signupUser(t, e, "owner@example.com"), admin: signupUser(t, e, "admin@example.com"),
		member: signupUser(t, e, "member@example.com")}
	tm.project = tm.owner.newProject("Team")
	tm.owner.addMember(tm.project.ID, "admin@example.com", "ADMIN")
	e.Clock.Advance(1)
	tm.owner.addMember(tm.project.ID, "member@example.com", "")
	return tm
}

func TestMembers(t *testing.T) {
	tm := newTeam(t)
	path := "/projects/" + tm.project.ID + "/members"
	r := tm.member.do("GET", path, nil)
	expectStatus(t, r, 200)
	var ms []memberJSON
	r.Decode(t, &ms)
	if len(ms) != 3 || ms[0].Email != "owner@example.com" || ms[0].Role != "OWNER" || ms[1].Role != "ADMIN" ||
		ms[2].Email != "member@example.com" || ms[2].Role != "MEMBER" || ms[2].UserID != tm.member.id || ms[2].CreatedAt == "" {
		t.Fatalf("members %s", r.Body)
	}
	carol := signupUser(t, tm.e, "carol@example.com")
	// An email with no account is invited (invitations_test.go); 404
	// USER_NOT_FOUND only with sign-up closed.
	if r := tm.admin.write("POST", path, map[string]any{"email": "nobody@example.com"}); r.Status != 201 || r.JSON()["invited"] != true {
		t.Errorf("POST members for an email with no account: %d %s", r.Status, r.Body)
	}
	expectError(t, tm.admin.write("POST", path, map[string]any{"email": "MEMBER@example.com"}), 409, "CONFLICT")
	expectField(t, tm.admin.write("POST", path, map[string]any{"email": "carol@example.com", "role": "KING"}), "role", "invalid_enum_value")
	expectField(t, tm.admin.write("POST", path, map[string]any{"email": "carol"}), "email", "invalid_string")
	m := tm.admin.addMember(tm.project.ID, "Carol@Example.com", "ADMIN")
	if m.UserID != carol.id || m.Role != "ADMIN" || m.Email != "carol@example.com" {
		t.Errorf("added %+v", m)
	}
	// Carol now sees the project, with its secret.
	r = carol.do("GET", "/users/@me/projects", nil)
	var ps []projectJSON
	r.Decode(t, &ps)
	if len(ps) != 1 || ps[0].Role != "ADMIN" || ps[0].Secret == nil {
		t.Errorf("carol's projects %s", r.Body)
	}

	r = tm.admin.write("PATCH", path+"/"+carol.id, map[string]any{"role": "MEMBER"})
	expectStatus(t, r, 200)
	r.Decode(t, &m)
	if m.Role != "MEMBER" || m.UserID != carol.id {
		t.Errorf("patched %s", r.Body)
	}
	expectError(t, tm.admin.write("PATCH", path+"/nobody", map[string]any{"role": "MEMBER"}), 404, "NOT_FOUND")
	expectError(t, tm.admin.write("DELETE", path+"/nobody", nil), 404, "NOT_FOUND")
	expectField(t, tm.admin.write("PATCH", path+"/"+carol.id, map[string]any{"role": "x"}), "role", "invalid_enum_value")
	expectStatus(t, tm.admin.write("DELETE", path+"/"+carol.id, nil), 204)
	if n := arrayLen(t, carol.do("GET", "/users/@me/projects", nil)); n != 0 {
		t.Errorf("carol still in %d projects", n)
	}
	expectError(t, carol.in(tm.project.ID, "GET", "/contacts", nil), 403, "PROJECT_ACCESS_DENIED")
}

func TestRoles(t *testing.T) {
	tm := newTeam(t)
	id := tm.project.ID
	path := "/projects/" + id + "/members"

	// MEMBER: resources and every GET; no secret.
	expectStatus(t, tm.member.in(id, "POST", "/contacts", map[string]any{"email": "c@example.com"}), 201)
	expectStatus(t, tm.member.in(id, "GET", "/contacts", nil), 200)
	r := tm.member.do("GET", "/users/@me/projects/"+id, nil)
	expectStatus(t, r, 200)
	if r.JSON()["secret"] != nil || r.JSON()["role"] != "MEMBER" {
		t.Errorf("a MEMBER sees %s", r.Body)
	}
	for _, c := range []struct{ method, path string }{
		{"PATCH", "/users/@me/projects/" + id},
		{"POST", "/users/@me/projects/" + id + "/regenerate-keys"},
		{"POST", "/users/@me/projects/" + id + "/reset"},
		{"DELETE", "/users/@me/projects/" + id},
		{"POST", path},
		{"PATCH", path + "/" + tm.admin.id},
		{"DELETE", path + "/" + tm.admin.id},
		{"DELETE", path + "/" + tm.member.id}, // removing yourself, too
	} {
		// The role is checked first: even a malformed body gets the 403.
		expectError(t, tm.member.write(c.method, c.path, "{"), 403, "FORBIDDEN")
	}

	// ADMIN: + PATCH, keys, members; not OWNER matters.
	expectStatus(t, tm.admin.write("PATCH", "/users/@me/projects/"+id, map[string]any{"name": "By admin"}), 200)
	expectStatus(t, tm.admin.write("POST", "/users/@me/projects/"+id+"/regenerate-keys", nil), 200)
	expectError(t, tm.admin.write("POST", path, map[string]any{"email": "nobody@example.com", "role": "OWNER"}), 403, "FORBIDDEN")
	expectError(t, tm.admin.write("PATCH", path+"/"+tm.member.id, map[string]any{"role": "OWNER"}), 403, "FORBIDDEN")
	// Demoting the (last) OWNER: the role rule comes before the 409.
	expectError(t, tm.admin.write("PATCH", path+"/"+tm.owner.id, map[string]any{"role": "MEMBER"}), 403, "FORBIDDEN")
	expectError(t, tm.admin.write("DELETE", path+"/"+tm.owner.id, nil), 403, "FORBIDDEN")
	expectError(t, tm.admin.write("DELETE", path+"/"+tm.admin.id, nil), 403, "FORBIDDEN")
	expectStatus(t, tm.admin.write("PATCH", path+"/"+tm.member.id, map[string]any{"role": "ADMIN"}), 200)
	expectStatus(t, tm.admin.write("PATCH", path+"/"+tm.member.id, map[string]any{"role": "MEMBER"}), 200)

	// OWNER: the last one cannot step down; after granting another, can.
	expectError(t, tm.owner.write("PATCH", path+"/"+tm.owner.id, map[string]any{"role": "ADMIN"}), 409, "CONFLICT")
	expectError(t, tm.owner.write("DELETE", path+"/"+tm.owner.id, nil), 403, "FORBIDDEN")
	expectStatus(t, tm.owner.write("PATCH", path+"/"+tm.admin.id, map[string]any{"role": "OWNER"}), 200)
	expectStatus(t, tm.owner.write("PATCH", path+"/"+tm.owner.id, map[string]any{"role": "ADMIN"}), 200)
	// Now an ADMIN, the former owner cannot touch the new owner.
	expectError(t, tm.owner.write("DELETE", path+"/"+tm.admin.id, nil), 403, "FORBIDDEN")
	expectStatus(t, tm.admin.write("DELETE", path+"/"+tm.owner.id, nil), 204)
}

func TestAtMost1000MembersPerProject(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := signupUser(t, e, "owner@example.com")
	p := owner.newProject("Big")
	// 999 more members, written directly: the API's way would hash 999
	// passwords.
	err := e.DB.Write(t.Context(), func(tx *storage.Tx) error {
		for i := range 999 {
			id := "bulk-user-" + strconv.Itoa(i)
			if _, err := tx.Exec(t.Context(), `INSERT INTO users (id, email, password_hash, email_verified, created_at, updated_at)
				VALUES (?, ?, 'x', 1, 0, 0)`, id, id+"@example.com"); err != nil {
				return err
			}
			if _, err := tx.Exec(t.Context(), `INSERT INTO project_members (project_id, user_id, role, created_at)
				VALUES (?, ?, 'MEMBER', 0)`, p.ID, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	signupUser(t, e, "late@example.com")
	expectField(t, owner.write("POST", "/projects/"+p.ID+"/members", map[string]any{"email": "late@example.com"}), "email", "too_many")
}
