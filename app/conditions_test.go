package app_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/web/webtest"
)

const day = 24 * time.Hour

// fixture is four contacts whose data and events exercise every operator.
// The clock reads webtest.Start (2026-01-15 12:00 UTC).
var fixture = []seedContact{
	{email: "ann@example.com", subscribed: true, created: 10 * day, updated: time.Hour,
		data: `{"plan":"Pro","age":34,"score":"42","tags":["vip","beta"],"signup":"2026-01-10T00:00:00Z",
			"flag":true,"nested":{"a":1},"dot.key":"x","quote\"key":"q"}`,
		events: []seedEvent{{"purchase", 2 * day}, {"purchase", 20 * day}, {"email.open", time.Hour}}},
	{email: "bob@example.com", subscribed: false, created: 40 * day, updated: 40 * day,
		data:   `{"plan":"free","age":17,"score":"abc","tags":[],"signup":"2025-06-01","flag":false}`,
		events: []seedEvent{{"purchase", 60 * day}}},
	{email: "cat@test.org", subscribed: true, created: day, updated: day,
		data:   `{"plan":"pro plus","age":34.5,"zip":"0042"}`,
		events: []seedEvent{{"signup", 5 * time.Minute}}},
	{email: "dan@test.org", subscribed: true, created: 100 * day, updated: 100 * day},
}

// f is a one-filter condition.
func f(field, operator string, value any, unit ...string) string {
	m := map[string]any{"field": field, "operator": operator, "value": value}
	if len(unit) > 0 {
		m["unit"] = unit[0]
	}
	return tree("AND", group(m))
}

func group(filters ...map[string]any) map[string]any { return map[string]any{"filters": filters} }

func tree(logic string, groups ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"logic": logic, "groups": groups})
	return string(b)
}

func flt(field, operator string, value any) map[string]any {
	return map[string]any{"field": field, "operator": operator, "value": value}
}

func TestConditionOperators(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	ids := seed(t, e, fixture)
	var all []string
	emailOf := map[string]string{}
	for email, id := range ids {
		all = append(all, id)
		emailOf[id] = strings.Split(email, "@")[0]
	}
	slices.Sort(all)
	static := createSegmentJSON(t, e, `{"name":"Static","type":"STATIC"}`)
	e.Secret("POST", "/segments/"+static+"/members", map[string]any{"emails": []string{"bob@example.com", "dan@test.org"}})
	pro := createSegmentJSON(t, e, `{"name":"Pro","condition":`+f("data.plan", "contains", "pro")+`}`)

	cases := []struct {
		name, cond string
		want       string // first parts of the emails, sorted, space separated
	}{
		{"email equals ignores case", f("email", "equals", "ANN@example.com"), "ann"},
		{"email notEquals", f("email", "notEquals", "ann@example.com"), "bob cat dan"},
		{"email contains", f("email", "contains", "TEST.org"), "cat dan"},
		{"email notContains", f("email", "notContains", "test.org"), "ann bob"},
		{"subscribed equals true", f("subscribed", "equals", true), "ann cat dan"},
		{"subscribed equals 'false'", f("subscribed", "equals", "false"), "bob"},
		{"subscribed notEquals", f("subscribed", "notEquals", true), "bob"},
		{"createdAt within", f("createdAt", "within", 7, "days"), "cat"},
		{"createdAt within 30 days", f("createdAt", "within", 30, "days"), "ann cat"},
		{"createdAt olderThan", f("createdAt", "olderThan", 30, "days"), "bob dan"},
		{"createdAt greaterThan date", f("createdAt", "greaterThan", "2026-01-01"), "ann cat"},
		{"createdAt lessThan date", f("createdAt", "lessThan", "2026-01-01T00:00:00Z"), "bob dan"},
		{"createdAt greaterThanOrEqual exact", f("createdAt", "greaterThanOrEqual", "2026-01-14T12:00:00Z"), "cat"},
		{"createdAt lessThanOrEqual exact", f("createdAt", "lessThanOrEqual", "2026-01-14T12:00:00Z"), "ann bob cat dan"},
		{"updatedAt within hours", f("updatedAt", "within", 2, "hours"), "ann"},
		{"updatedAt within minutes", f("updatedAt", "within", 60, "minutes"), "ann"},
		{"updatedAt within seconds", f("updatedAt", "within", 3599, "seconds"), ""},
		{"data equals ignores case", f("data.plan", "equals", "pro"), "ann"},
		{"data notEquals includes missing keys", f("data.plan", "notEquals", "pro"), "bob cat dan"},
		{"data contains", f("data.plan", "contains", "PRO"), "ann cat"},
		{"data notContains", f("data.plan", "notContains", "pro"), "bob dan"},
		{"data greaterThan number", f("data.age", "greaterThan", 30), "ann cat"},
		{"data greaterThanOrEqual", f("data.age", "greaterThanOrEqual", 34), "ann cat"},
		{"data lessThan", f("data.age", "lessThan", 34), "bob"},
		{"data lessThanOrEqual", f("data.age", "lessThanOrEqual", 34), "ann bob"},
		{"data equals integer", f("data.age", "equals", 34), "ann"},
		{"data equals fraction", f("data.age", "equals", 34.5), "cat"},
		{"numeric text compares as a number", f("data.score", "greaterThan", 40), "ann"},
		{"numeric text equals number", f("data.score", "equals", 42), "ann"},
		{"numeric text equals text", f("data.score", "equals", "42"), "ann"},
		{"text that is not a number", f("data.score", "equals", "ABC"), "bob"},
		{"leading zeros stay text", f("data.zip", "equals", 42), ""},
		{"leading zeros equal as text", f("data.zip", "equals", "0042"), "cat"},
		{"numbers do not compare with texts", f("data.plan", "greaterThan", 0), ""},
		{"array contains", f("data.tags", "contains", "vi"), "ann"},
		{"array element equals", f("data.tags", "equals", "VIP"), "ann"},
		{"exists (an empty array too)", f("data.tags", "exists", nil), "ann bob"},
		{"notExists", f("data.tags", "notExists", nil), "cat dan"},
		{"object exists", f("data.nested", "exists", nil), "ann"},
		{"key with a dot", f("data.dot.key", "equals", "x"), "ann"},
		{"key with a quote", f(`data.quote"key`, "equals", "Q"), "ann"},
		{"data date within", f("data.signup", "within", 7, "days"), "ann"},
		{"data date olderThan", f("data.signup", "olderThan", 30, "days"), "bob"},
		{"data date greaterThan", f("data.signup", "greaterThan", "2026-01-01"), "ann"},
		{"data date lessThan", f("data.signup", "lessThan", "2026-01-01"), "bob"},
		{"boolean equals", f("data.flag", "equals", true), "ann"},
		{"boolean equals false", f("data.flag", "equals", false), "bob"},
		{"boolean equals its text", f("data.flag", "equals", "TRUE"), "ann"},
		{"boolean notEquals", f("data.flag", "notEquals", true), "bob cat dan"},
		{"triggered", f("event.purchase", "triggered", nil), "ann bob"},
		{"notTriggered", f("event.purchase", "notTriggered", nil), "cat dan"},
		{"triggeredWithin", f("event.purchase", "triggeredWithin", 7, "days"), "ann"},
		{"notTriggeredWithin includes never", f("event.purchase", "notTriggeredWithin", 7, "days"), "bob cat dan"},
		{"triggeredOlderThan: latest is older", f("event.purchase", "triggeredOlderThan", 30, "days"), "bob"},
		{"triggeredOlderThan 1 day", f("event.purchase", "triggeredOlderThan", 1, "days"), "ann bob"},
		{"triggeredWithin includes the edge", f("event.signup", "triggeredWithin", 300, "seconds"), "cat"},
		{"triggeredWithin excludes older", f("event.signup", "triggeredWithin", 4, "minutes"), ""},
		{"triggeredWithin as text amount", f("event.signup", "triggeredWithin", "10", "minutes"), "cat"},
		{"triggeredWithin fraction", f("event.signup", "triggeredWithin", 0.1, "hours"), "cat"},
		{"email activity", f("email.open", "triggered", nil), "ann"},
		{"email activity within", f("email.open", "triggeredWithin", 2, "hours"), "ann"},
		{"static member", f("segment."+static, "memberOfSegment", nil), "bob dan"},
		{"not a static member", f("segment."+static, "notMemberOfSegment", nil), "ann cat"},
		{"dynamic member", f("segment", "memberOfSegment", pro), "ann cat"},
		{"not a dynamic member", f("segment", "notMemberOfSegment", pro), "bob dan"},
		{"OR of groups", tree("OR", group(flt("email", "contains", "ann")), group(flt("email", "contains", "bob"))), "ann bob"},
		{"AND of groups", tree("AND", group(flt("subscribed", "equals", true)), group(flt("data.plan", "contains", "pro"))), "ann cat"},
		{"group ANDs filters", tree("OR", group(flt("subscribed", "equals", true), flt("event.purchase", "triggered", nil))), "ann"},
		{"nested OR inside a group", tree("AND", map[string]any{"filters": []any{flt("subscribed", "equals", true)},
			"conditions": json.RawMessage(tree("OR", group(flt("data.age", "greaterThan", 30)), group(flt("data.plan", "equals", "free"))))}), "ann cat"},
		{"only negations", tree("AND", group(flt("event.purchase", "notTriggered", nil), flt("email", "notContains", "cat"))), "dan"},
		{"OR with a negated group", tree("OR", group(flt("data.tags", "notExists", nil)), group(flt("email", "equals", "ann@example.com"))), "ann cat dan"},
		{"nested only conditions", tree("AND", map[string]any{"conditions": json.RawMessage(f("event.signup", "triggered", nil))}), "cat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			aud, err := audienceOf(t, e, c.cond)
			if err != nil {
				t.Fatalf("%s: %v", c.cond, err)
			}
			var got []string
			for _, id := range members(t, e, aud, all) {
				got = append(got, emailOf[id])
			}
			slices.Sort(got)
			if strings.Join(got, " ") != c.want {
				t.Fatalf("%s\ngot  %q\nwant %q", c.cond, strings.Join(got, " "), c.want)
			}
		})
	}
}

func createSegmentJSON(t *testing.T, e *webtest.Env, body string) string {
	t.Helper()
	r := e.Secret("POST", "/segments", body)
	if r.Status != 201 {
		t.Fatalf("create segment: %d %s", r.Status, r.Body)
	}
	id, _ := r.JSON()["id"].(string)
	return id
}

func TestParseConditionErrors(t *testing.T) {
	cases := []struct{ raw, field, code string }{
		{`[]`, "condition", "invalid_type"},
		{`{"groups": "x"}`, "condition.groups", "invalid_type"},
		{`{"logic": 1, "groups": [{"filters": [{"field": "email", "operator": "contains", "value": "a"}]}]}`, "condition.logic", "invalid_type"},
		{`{"groups": [5]}`, "condition.groups.0", "invalid_type"},
		{`{"groups": [{}]}`, "condition.groups.0.filters", "too_small"},
		{`{"groups": [{"filters": {}}]}`, "condition.groups.0.filters", "invalid_type"},
		{`{"groups": [{"filters": ["x"]}]}`, "condition.groups.0.filters.0", "invalid_type"},
		{`{"groups": [{"filters": [{"operator": "exists"}]}]}`, "condition.groups.0.filters.0.field", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "data.x"}]}]}`, "condition.groups.0.filters.0.operator", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "data.", "operator": "exists"}]}]}`, "condition.groups.0.filters.0.field", "invalid_field"},
		{`{"groups": [{"filters": [{"field": "event.x", "operator": "equals", "value": 1}]}]}`, "condition.groups.0.filters.0.operator", "invalid_operator"},
		{`{"groups": [{"filters": [{"field": "segment", "operator": "memberOfSegment"}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "createdAt", "operator": "within", "value": 0, "unit": "days"}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "createdAt", "operator": "within", "value": 36501, "unit": "days"}]}]}`, "condition.groups.0.filters.0.value", "too_big"},
		{`{"groups": [{"filters": [{"field": "createdAt", "operator": "within", "value": 1, "unit": 7}]}]}`, "condition.groups.0.filters.0.unit", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "createdAt", "operator": "greaterThan", "value": 5}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "data.x", "operator": "equals", "value": null}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "data.x", "operator": "equals", "value": {"a": 1}}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "data.x", "operator": "contains", "value": 5}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "email", "operator": "equals", "value": ""}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "subscribed", "operator": "equals", "value": "yes"}]}]}`, "condition.groups.0.filters.0.value", "invalid_type"},
		{`{"groups": [{"filters": [{"field": "email", "operator": "contains", "value": "a"}], "conditions": 3}]}`, "condition.groups.0.conditions", "invalid_type"},
	}
	for _, c := range cases {
		_, err := audience.ParseCondition(json.RawMessage(c.raw), "condition")
		e, ok := apierr.AsError(err)
		if !ok || e.Kind != apierr.KindValidation {
			t.Errorf("%s: want a validation error, got %v", c.raw, err)
			continue
		}
		found := false
		for _, fe := range e.Fields {
			found = found || fe.Field == c.field && fe.Code == c.code
		}
		if !found {
			t.Errorf("%s: want {%s %s}, got %+v", c.raw, c.field, c.code, e.Fields)
		}
	}
}

func TestConditionLimits(t *testing.T) {
	deep := f("email", "contains", "a")
	for range audience.MaxConditionDepth + 1 {
		deep = `{"logic":"AND","groups":[{"filters":[],"conditions":` + deep + `}]}`
	}
	if _, err := audience.ParseCondition(json.RawMessage(deep), "condition"); err == nil {
		t.Error("a tree nested too deep must be refused")
	}
	many := make([]map[string]any, audience.MaxConditionFilters+1)
	for i := range many {
		many[i] = flt("email", "contains", "a")
	}
	if _, err := audience.ParseCondition(json.RawMessage(tree("AND", group(many...))), "condition"); err == nil {
		t.Error("too many filters must be refused")
	}
	if _, err := audience.ParseCondition(json.RawMessage(tree("AND", group(many[1:]...))), "condition"); err != nil {
		t.Errorf("100 filters are allowed: %v", err)
	}
}
