package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// segmentJSON is a segment as the API returns it.
type segmentJSON struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Type            string         `json:"type"`
	Condition       map[string]any `json:"condition"`
	TrackMembership bool           `json:"trackMembership"`
	MemberCount     int            `json:"memberCount"`
	ProjectID       string         `json:"projectId"`
	CreatedAt       string         `json:"createdAt"`
	UpdatedAt       string         `json:"updatedAt"`
}

// numberedPage is a page-numbered list.
type numberedPage[T any] struct {
	Data       []T `json:"data"`
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	Total      int `json:"total"`
	TotalPages int `json:"totalPages"`
}

// cond builds a one-group condition from filters.
func cond(filters ...map[string]any) map[string]any {
	return map[string]any{"logic": "AND", "groups": []any{map[string]any{"filters": filters}}}
}

func filter(field, operator string, value any) map[string]any {
	return map[string]any{"field": field, "operator": operator, "value": value}
}

func createSegment(t testing.TB, e *webtest.Env, body map[string]any) segmentJSON {
	t.Helper()
	r := e.Secret("POST", "/segments", body)
	expectStatus(t, r, 201)
	var g segmentJSON
	r.Decode(t, &g)
	return g
}

func segmentContactEmails(t *testing.T, e *webtest.Env, id string) []string {
	t.Helper()
	r := e.Secret("GET", "/segments/"+id+"/contacts?pageSize=100", nil)
	expectStatus(t, r, 200)
	var p numberedPage[contactJSON]
	r.Decode(t, &p)
	var out []string
	for _, c := range p.Data {
		out = append(out, c.Email)
	}
	return out
}

func TestSegmentCreateGetList(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"plan": "Pro"}})
	createContact(t, e, map[string]any{"email": "b@example.com", "data": map[string]any{"plan": "free"}})

	pro := createSegment(t, e, map[string]any{"name": "Pro users", "description": "paying",
		"condition": cond(filter("data.plan", "equals", "pro"))})
	if pro.ID == "" || pro.Type != "DYNAMIC" || pro.MemberCount != 1 || pro.TrackMembership ||
		pro.ProjectID != e.Project.ID || pro.Description != "paying" || pro.Condition["logic"] != "AND" || pro.CreatedAt == "" {
		t.Fatalf("created segment: %+v", pro)
	}
	e.Clock.Advance(time.Second)
	static := createSegment(t, e, map[string]any{"name": "List", "type": "STATIC",
		"condition": cond(filter("data.plan", "equals", "pro"))})
	if static.Condition != nil || static.MemberCount != 0 {
		t.Fatalf("a STATIC segment ignores a condition: %+v", static)
	}

	r := e.Secret("GET", "/segments/"+pro.ID, nil)
	expectStatus(t, r, 200)
	var got segmentJSON
	r.Decode(t, &got)
	if got.ID != pro.ID || got.MemberCount != 1 || got.Name != "Pro users" {
		t.Fatalf("GET: %s", r.Body)
	}

	r = e.Secret("GET", "/segments", nil)
	expectStatus(t, r, 200)
	var list []segmentJSON
	r.Decode(t, &list)
	if len(list) != 2 || list[0].ID != static.ID || list[1].ID != pro.ID {
		t.Fatalf("GET /segments must be a bare array, newest first: %s", r.Body)
	}

	expectError(t, e.Secret("GET", "/segments/nope", nil), 404, "SEGMENT_NOT_FOUND")
	other := webtest.New(t, webtest.Options{NoWorkers: true})
	expectError(t, other.Secret("GET", "/segments/"+pro.ID, nil), 404, "SEGMENT_NOT_FOUND")
}

func TestSegmentCreateValidation(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ok := cond(filter("data.plan", "equals", "pro"))
	long := strings.Repeat("é", 101)
	cases := []struct {
		name  string
		body  map[string]any
		field string
		code  string
	}{
		{"name missing", map[string]any{"condition": ok}, "name", "invalid_type"},
		{"name empty", map[string]any{"name": "", "condition": ok}, "name", "too_small"},
		{"name 101 chars", map[string]any{"name": long, "condition": ok}, "name", "too_big"},
		{"name not a string", map[string]any{"name": 5, "condition": ok}, "name", "invalid_type"},
		{"description 501 chars", map[string]any{"name": "x", "description": strings.Repeat("d", 501), "condition": ok}, "description", "too_big"},
		{"bad type", map[string]any{"name": "x", "type": "SMART", "condition": ok}, "type", "invalid_enum_value"},
		{"empty groups", map[string]any{"name": "x", "condition": map[string]any{"logic": "AND", "groups": []any{}}}, "condition.groups", "invalid_type"},
		{"bad logic", map[string]any{"name": "x", "condition": map[string]any{"logic": "XOR", "groups": []any{map[string]any{"filters": []any{filter("email", "contains", "a")}}}}}, "condition.logic", "invalid_enum_value"},
		{"unknown operator", map[string]any{"name": "x", "condition": cond(filter("email", "contains", "a"), filter("data.plan", "resembles", "pro"))}, "condition.groups.0.filters.1.operator", "invalid_enum_value"},
		{"unknown field", map[string]any{"name": "x", "condition": cond(filter("plan", "equals", "pro"))}, "condition.groups.0.filters.0.field", "invalid_field"},
		{"unknown email activity", map[string]any{"name": "x", "condition": cond(filter("email.read", "triggered", nil))}, "condition.groups.0.filters.0.field", "invalid_field"},
		{"operator not for field", map[string]any{"name": "x", "condition": cond(filter("subscribed", "contains", "x"))}, "condition.groups.0.filters.0.operator", "invalid_operator"},
		{"missing value", map[string]any{"name": "x", "condition": cond(map[string]any{"field": "data.plan", "operator": "equals"})}, "condition.groups.0.filters.0.value", "invalid_type"},
		{"wrong value type", map[string]any{"name": "x", "condition": cond(filter("data.age", "greaterThan", "lots"))}, "condition.groups.0.filters.0.value", "invalid_type"},
		{"missing unit", map[string]any{"name": "x", "condition": cond(filter("event.signup", "triggeredWithin", 7))}, "condition.groups.0.filters.0.unit", "invalid_type"},
		{"bad unit", map[string]any{"name": "x", "condition": cond(map[string]any{"field": "createdAt", "operator": "within", "value": 7, "unit": "weeks"})}, "condition.groups.0.filters.0.unit", "invalid_enum_value"},
		{"unknown segment", map[string]any{"name": "x", "condition": cond(filter("segment.0190a0a0-0000-7000-8000-000000000000", "memberOfSegment", nil))}, "condition.groups.0.filters.0.field", "segment_not_found"},
		{"nested error path", map[string]any{"name": "x", "condition": map[string]any{"logic": "OR", "groups": []any{
			map[string]any{"filters": []any{filter("email", "contains", "a")},
				"conditions": map[string]any{"logic": "AND", "groups": []any{map[string]any{"filters": []any{filter("data.x", "exists", nil), filter("event.y", "triggeredWithin", -1)}}}}}}}},
			"condition.groups.0.conditions.groups.0.filters.1.value", "invalid_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectField(t, e.Secret("POST", "/segments", c.body), c.field, c.code)
		})
	}
	expectStatus(t, e.Secret("POST", "/segments", map[string]any{"name": strings.Repeat("é", 100), "condition": ok}), 201)
	expectStatus(t, e.Secret("POST", "/segments", map[string]any{"name": "x", "description": strings.Repeat("d", 500), "condition": ok}), 201)

	t.Run("dynamic without an object condition is a plain 400", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"name": "x"}, {"name": "x", "condition": nil}, {"name": "x", "type": "DYNAMIC", "condition": "data.plan = pro"},
			{"name": "x", "condition": []any{}},
		} {
			r := e.Secret("POST", "/segments", body)
			expectStatus(t, r, 400)
			m := r.JSON()
			if len(m) != 1 || m["error"] == nil {
				t.Fatalf("want a bare {error} body, got %s", r.Body)
			}
		}
	})
	t.Run("malformed JSON", func(t *testing.T) {
		expectError(t, e.Secret("POST", "/segments", `{"name": `), 400, "VALIDATION_ERROR")
	})
	var list []segmentJSON
	e.Secret("GET", "/segments", nil).Decode(t, &list)
	if len(list) != 2 {
		t.Fatalf("refused requests created segments: %d", len(list))
	}
}

func TestSegmentReferencesAndCycles(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"plan": "pro"}})
	createContact(t, e, map[string]any{"email": "b@example.com", "data": map[string]any{"plan": "free"}})
	a := createSegment(t, e, map[string]any{"name": "A", "condition": cond(filter("data.plan", "equals", "pro"))})
	b := createSegment(t, e, map[string]any{"name": "B", "condition": cond(filter("segment."+a.ID, "memberOfSegment", nil))})
	if b.MemberCount != 1 {
		t.Fatalf("B counts A's members: %+v", b)
	}
	// The other spelling: field "segment" with the id as value.
	notB := createSegment(t, e, map[string]any{"name": "not B", "condition": cond(filter("segment", "notMemberOfSegment", b.ID))})
	if got := segmentContactEmails(t, e, notB.ID); fmt.Sprint(got) != "[b@example.com]" {
		t.Fatalf("not B: %v", got)
	}

	self := map[string]any{"condition": cond(filter("email", "contains", "@"), filter("segment."+a.ID, "memberOfSegment", nil))}
	expectField(t, e.Secret("PATCH", "/segments/"+a.ID, self), "condition.groups.0.filters.1.field", "segment_cycle")
	through := map[string]any{"condition": cond(filter("segment", "memberOfSegment", notB.ID))}
	expectField(t, e.Secret("PATCH", "/segments/"+a.ID, through), "condition.groups.0.filters.0.value", "segment_cycle")

	// A deleted segment selects nobody from those that name it.
	expectStatus(t, e.Secret("DELETE", "/segments/"+a.ID, nil), 204)
	if got := segmentContactEmails(t, e, b.ID); len(got) != 0 {
		t.Fatalf("B after A's deletion: %v", got)
	}
	// B's dangling reference is B's own affair: naming B is still allowed.
	createSegment(t, e, map[string]any{"name": "C", "condition": cond(filter("segment."+b.ID, "notMemberOfSegment", nil))})
}

func TestSegmentPatchAndDelete(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"plan": "pro"}})
	g := createSegment(t, e, map[string]any{"name": "Pro", "condition": cond(filter("data.plan", "equals", "pro"))})
	e.Clock.Advance(time.Minute)

	r := e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"name": "Free", "description": "d", "trackMembership": true,
		"condition": cond(filter("data.plan", "equals", "free"))})
	expectStatus(t, r, 200)
	var got segmentJSON
	r.Decode(t, &got)
	if got.Name != "Free" || got.Description != "d" || !got.TrackMembership || got.MemberCount != 0 ||
		got.UpdatedAt == got.CreatedAt || got.CreatedAt != g.CreatedAt {
		t.Fatalf("patched: %s", r.Body)
	}
	expectField(t, e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"name": strings.Repeat("n", 101)}), "name", "too_big")
	expectField(t, e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"condition": cond(filter("data.plan", "like", "x"))}),
		"condition.groups.0.filters.0.operator", "invalid_enum_value")
	// Only POST keeps the spec's bare {error}; PATCH answers in the envelope.
	expectField(t, e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"condition": nil}), "condition", "invalid_type")
	expectError(t, e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"type": "STATIC"}), 400, "BAD_REQUEST")

	static := createSegment(t, e, map[string]any{"name": "S", "type": "STATIC"})
	r = e.Secret("PATCH", "/segments/"+static.ID, map[string]any{"condition": cond(filter("data.plan", "equals", "pro")), "type": "STATIC"})
	expectStatus(t, r, 200)
	if r.JSON()["condition"] != nil {
		t.Fatalf("a STATIC segment ignores a condition: %s", r.Body)
	}

	expectStatus(t, e.Secret("DELETE", "/segments/"+g.ID, nil), 204)
	expectError(t, e.Secret("GET", "/segments/"+g.ID, nil), 404, "SEGMENT_NOT_FOUND")
	expectError(t, e.Secret("DELETE", "/segments/"+g.ID, nil), 404, "SEGMENT_NOT_FOUND")
	expectError(t, e.Secret("PATCH", "/segments/"+g.ID, map[string]any{"name": "x"}), 404, "SEGMENT_NOT_FOUND")
}

func TestSegmentContactsPages(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	var ids []string
	for i := range 25 {
		c := createContact(t, e, map[string]any{"email": fmt.Sprintf("u%02d@example.com", i), "data": map[string]any{"n": i}})
		ids = append(ids, c.ID)
		e.Clock.Advance(time.Second)
	}
	createContact(t, e, map[string]any{"email": "other@example.com"})
	g := createSegment(t, e, map[string]any{"name": "Numbered", "condition": cond(filter("data.n", "greaterThanOrEqual", 0))})

	page := func(query string) numberedPage[contactJSON] {
		r := e.Secret("GET", "/segments/"+g.ID+"/contacts"+query, nil)
		expectStatus(t, r, 200)
		var p numberedPage[contactJSON]
		r.Decode(t, &p)
		return p
	}
	p := page("?page=1&pageSize=10")
	if p.Total != 25 || p.TotalPages != 3 || p.Page != 1 || p.PageSize != 10 || len(p.Data) != 10 || p.Data[0].ID != ids[24] {
		t.Fatalf("page 1: %+v", p)
	}
	if p = page("?page=3&pageSize=10"); len(p.Data) != 5 || p.Data[4].ID != ids[0] {
		t.Fatalf("page 3: %+v", p)
	}
	if p = page(""); p.Page != 1 || p.PageSize != 20 || len(p.Data) != 20 {
		t.Fatalf("defaults: page %d size %d len %d", p.Page, p.PageSize, len(p.Data))
	}
	if p = page("?page=0&pageSize=1000"); p.Page != 1 || p.PageSize != 100 || len(p.Data) != 25 {
		t.Fatalf("clamped: page %d size %d len %d", p.Page, p.PageSize, len(p.Data))
	}
	if p = page("?page=9"); len(p.Data) != 0 || p.Total != 25 || p.Data == nil {
		t.Fatalf("past the end: %+v", p)
	}
	// Live: a contact that stops matching leaves the list at once, while
	// the cached memberCount waits for a refresh.
	expectStatus(t, e.Secret("PATCH", "/contacts/"+ids[3], map[string]any{"data": map[string]any{"n": nil}}), 200)
	if p = page(""); p.Total != 24 {
		t.Fatalf("live total %d, want 24", p.Total)
	}
	var cached segmentJSON
	e.Secret("GET", "/segments/"+g.ID, nil).Decode(t, &cached)
	if cached.MemberCount != 25 {
		t.Fatalf("memberCount is cached until a refresh: %d", cached.MemberCount)
	}
	r := e.Secret("POST", "/segments/"+g.ID+"/refresh", nil)
	expectStatus(t, r, 200)
	r.Decode(t, &cached)
	if cached.MemberCount != 24 {
		t.Fatalf("refreshed memberCount %d", cached.MemberCount)
	}
	expectError(t, e.Secret("GET", "/segments/nope/contacts", nil), 404, "SEGMENT_NOT_FOUND")
}
