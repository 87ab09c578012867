package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func TestDuplicateTemplate(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, minimalTemplate(map[string]any{"fromName": "Team", "type": "TRANSACTIONAL"}))
	e.Clock.Advance(time.Hour)
	r := e.Secret("POST", "/templates/"+tpl.ID+"/duplicate", nil)
	expectStatus(t, r, 201)
	var dup templateJSON
	r.Decode(t, &dup)
	if dup.ID == "" || dup.ID == tpl.ID || dup.Name != "Welcome (copy)" || dup.Subject != tpl.Subject ||
		dup.Body != tpl.Body || dup.From != tpl.From || *dup.FromName != "Team" || dup.Type != "TRANSACTIONAL" ||
		!dup.CreatedAt.Equal(webtest.Start.Add(time.Hour)) {
		t.Fatalf("duplicate = %+v", dup)
	}
	expectStatus(t, e.Secret("GET", "/templates/"+dup.ID, nil), 200)

	long := createTemplate(t, e, minimalTemplate(map[string]any{"name": strings.Repeat("é", 255)}))
	r = e.Secret("POST", "/templates/"+long.ID+"/duplicate", nil)
	expectStatus(t, r, 201)
	if name := r.JSON()["name"].(string); len([]rune(name)) != 255 || !strings.HasSuffix(name, " (copy)") {
		t.Errorf("long duplicate name has %d characters: %q", len([]rune(name)), name)
	}
}

func TestTemplateUsage(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	tpl := createTemplate(t, e, minimalTemplate())
	r := e.Secret("GET", "/templates/"+tpl.ID+"/usage", nil)
	expectStatus(t, r, 200)
	if got := strings.TrimSpace(string(r.Body)); got != `{"campaigns":[],"workflows":[]}` {
		t.Errorf("usage = %s", got)
	}
}

func TestListTemplates(t *testing.T) {
	t.Parallel()
	e := templateEnv(t)
	var made []templateJSON
	for i, spec := range []map[string]any{
		{"name": "Weekly News", "type": "MARKETING"},
		{"name": "Password reset", "type": "TRANSACTIONAL"},
		{"name": "Monthly news", "type": "MARKETING"},
	} {
		e.Clock.Advance(time.Duration(i+1) * time.Second)
		made = append(made, createTemplate(t, e, minimalTemplate(spec)))
	}
	var p page[templateJSON]
	r := e.Secret("GET", "/templates?limit=2", nil)
	expectStatus(t, r, 200)
	r.Decode(t, &p)
	if len(p.Data) != 2 || p.Data[0].ID != made[2].ID || p.Data[1].ID != made[1].ID || !p.HasMore || p.Cursor == "" || p.Total != 3 {
		t.Fatalf("first page = %s", r.Body)
	}
	r = e.Secret("GET", "/templates?limit=2&cursor="+p.Cursor, nil)
	p = page[templateJSON]{}
	r.Decode(t, &p)
	if len(p.Data) != 1 || p.Data[0].ID != made[0].ID || p.HasMore {
		t.Fatalf("second page = %s", r.Body)
	}

	r = e.Secret("GET", "/templates?search=NEWS", nil)
	p = page[templateJSON]{}
	r.Decode(t, &p)
	if p.Total != 2 || len(p.Data) != 2 {
		t.Errorf("search = %s", r.Body)
	}
	r = e.Secret("GET", "/templates?type=TRANSACTIONAL", nil)
	p = page[templateJSON]{}
	r.Decode(t, &p)
	if p.Total != 1 || p.Data[0].ID != made[1].ID {
		t.Errorf("type filter = %s", r.Body)
	}
	r = e.Secret("GET", "/templates?search=100%25", nil)
	p = page[templateJSON]{}
	r.Decode(t, &p)
	if p.Total != 0 {
		t.Errorf("a %% in search must match literally: %s", r.Body)
	}
	expectError(t, e.Secret("GET", "/templates?type=bogus", nil), 400, "BAD_REQUEST")
	expectError(t, e.Secret("GET", "/templates?cursor=garbage", nil), 400, "BAD_REQUEST")

	other, err := e.App.Accounts.CreateProject(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	r = e.Do("GET", "/templates", other.Secret, nil)
	p = page[templateJSON]{}
	r.Decode(t, &p)
	if p.Total != 0 || len(p.Data) != 0 || p.Data == nil {
		t.Errorf("other project sees %s", r.Body)
	}
}
