package web_test

import (
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

func TestAudienceCount(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	createContact(t, e, map[string]any{"email": "a@x.test", "data": map[string]any{"plan": "pro"}})
	createContact(t, e, map[string]any{"email": "b@x.test", "subscribed": false, "data": map[string]any{"plan": "pro"}})
	createContact(t, e, map[string]any{"email": "c@x.test", "data": map[string]any{"plan": "free"}})

	count := func(body map[string]any) map[string]any {
		t.Helper()
		r := e.Secret("POST", "/audience/count", body)
		expectStatus(t, r, 200)
		return r.JSON()
	}
	if got := count(map[string]any{}); got["count"] != 3.0 || got["subscribed"] != 2.0 {
		t.Fatalf("ALL: %v", got)
	}
	pro := map[string]any{"logic": "OR", "groups": []any{
		map[string]any{"filters": []any{map[string]any{"field": "data.plan", "operator": "equals", "value": "pro"}}},
	}}
	if got := count(map[string]any{"condition": pro}); got["count"] != 2.0 || got["subscribed"] != 1.0 {
		t.Fatalf("FILTERED: %v", got)
	}
	r := e.Secret("POST", "/segments", map[string]any{"name": "Pro", "condition": pro})
	expectStatus(t, r, 201)
	id := r.JSON()["id"].(string)
	if got := count(map[string]any{"audienceType": "SEGMENT", "segmentId": id}); got["count"] != 2.0 {
		t.Fatalf("SEGMENT: %v", got)
	}

	expectError(t, e.Secret("POST", "/audience/count", map[string]any{"audienceType": "SEGMENT", "segmentId": "nope"}), 404, "SEGMENT_NOT_FOUND")
	expectField(t, e.Secret("POST", "/audience/count", map[string]any{"audienceType": "FILTERED"}), "condition", "invalid_type")
	expectField(t, e.Secret("POST", "/audience/count", map[string]any{"audienceType": "SOME"}), "audienceType", "invalid_enum_value")
	bad := map[string]any{"logic": "AND", "groups": []any{map[string]any{"filters": []any{map[string]any{"field": "email", "operator": "nope", "value": 1}}}}}
	if r := e.Secret("POST", "/audience/count", map[string]any{"condition": bad}); r.Status != 422 {
		t.Fatalf("bad operator: %d %s", r.Status, r.Body)
	}
}
