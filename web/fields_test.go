package web_test

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

type fieldJSON struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	Coverage int    `json:"coverage"`
}

func contactFields(t *testing.T, e *webtest.Env) map[string]fieldJSON {
	t.Helper()
	r := e.Secret("GET", "/contacts/fields", nil)
	expectStatus(t, r, 200)
	var res struct {
		Fields []fieldJSON `json:"fields"`
		Count  int         `json:"count"`
	}
	r.Decode(t, &res)
	if res.Count != len(res.Fields) {
		t.Fatalf("count %d for %d fields", res.Count, len(res.Fields))
	}
	out := map[string]fieldJSON{}
	for _, f := range res.Fields {
		out[f.Field] = f
	}
	return out
}

func TestContactFields(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	if f := contactFields(t, e); f["email"].Coverage != 0 || len(f) != 4 {
		t.Fatalf("empty project: %v", f)
	}
	for i, data := range []map[string]any{
		{"plan": "pro", "age": 30, "vip": true, "since": "2024-05-01", "mixed": 1},
		{"plan": "free", "age": 41.5, "vip": false, "since": "2025-01-31T10:00:00Z", "mixed": "one"},
		{"plan": "pro", "since": "not a date"},
	} {
		createContact(t, e, map[string]any{"email": "c" + itoa(i) + "@example.com", "data": data})
	}
	createContact(t, e, map[string]any{"email": "bare@example.com"})
	got := contactFields(t, e)
	want := map[string]fieldJSON{
		"email":      {"email", "string", 100},
		"subscribed": {"subscribed", "boolean", 100},
		"createdAt":  {"createdAt", "date", 100},
		"updatedAt":  {"updatedAt", "date", 100},
		"data.plan":  {"data.plan", "string", 75},
		"data.age":   {"data.age", "number", 50},
		"data.vip":   {"data.vip", "boolean", 50},
		"data.since": {"data.since", "string", 75},
		"data.mixed": {"data.mixed", "string", 50},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fields\n got %v\nwant %v", got, want)
	}
	// Dates only.
	createContact(t, e, map[string]any{"email": "d@example.com", "data": map[string]any{"birthday": "1990-02-03"}})
	if f := contactFields(t, e)["data.birthday"]; f.Type != "date" || f.Coverage != 20 {
		t.Fatalf("birthday %v", f)
	}
}

func itoa(n int) string { return string(rune('a' + n)) }

func TestContactFieldValues(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for i, v := range []any{"pro", "pro", "free", 1, true, "1", map[string]any{"a": 1}, []any{1, "x"}, 1} {
		createContact(t, e, map[string]any{"email": "c" + itoa(i) + "@example.com", "data": map[string]any{"plan": v, "other": "x"}})
	}
	r := e.Secret("GET", "/contacts/fields/plan/values", nil)
	expectStatus(t, r, 200)
	// Plunk's shape: the distinct values themselves, most frequent first,
	// with their number and the limit applied.
	var res struct {
		Field  string
		Values []any
		Count  int
		Limit  int
	}
	r.Decode(t, &res)
	if res.Field != "data.plan" || res.Count != 7 || res.Limit != 100 || len(res.Values) != 7 {
		t.Fatalf("values: %s", r.Body)
	}
	got := map[string]bool{}
	for _, v := range res.Values {
		got[mustJSON(t, v)] = true
	}
	want := map[string]bool{`"pro"`: true, `"free"`: true, `1`: true, `true`: true, `"1"`: true, `{"a":1}`: true, `[1,"x"]`: true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("values\n got %v\nwant %v\n%s", got, want, r.Body)
	}
	if first := mustJSON(t, res.Values[0]); first != `"pro"` && first != `1` {
		t.Fatalf("most frequent first: %s", r.Body)
	}
	// ?limit= takes at most 200, as Plunk.
	var lim struct {
		Values []any
		Count  int
		Limit  int
	}
	e.Secret("GET", "/contacts/fields/plan/values?limit=2", nil).Decode(t, &lim)
	if lim.Count != 2 || lim.Limit != 2 || len(lim.Values) != 2 {
		t.Fatalf("limit 2: %+v", lim)
	}
	e.Secret("GET", "/contacts/fields/plan/values?limit=5000", nil).Decode(t, &lim)
	if lim.Limit != 200 || lim.Count != 7 {
		t.Fatalf("limit 5000: %+v", lim)
	}
	// "data.plan" names the same field; an unknown field has no values.
	r2 := e.Secret("GET", "/contacts/fields/data.plan/values", nil)
	if string(r2.Body) != string(r.Body) {
		t.Fatalf("data.plan: %s", r2.Body)
	}
	r = e.Secret("GET", "/contacts/fields/nothing/values", nil)
	expectStatus(t, r, 200)
	if vals, _ := r.JSON()["values"].([]any); vals == nil || len(vals) != 0 {
		t.Fatalf("unknown field: %s", r.Body)
	}
	expectField(t, e.Secret("GET", "/contacts/fields/data./values", nil), "field", "invalid_string")
}

func TestContactFieldUsage(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	r := e.Secret("GET", "/contacts/fields/plan/usage", nil)
	expectStatus(t, r, 200)
	if m := r.JSON(); m["name"] != "data.plan" || m["inUse"] != false {
		t.Fatalf("usage %s", r.Body)
	}
}

func TestDeleteContactField(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{
		"plan": "pro", "vip": true, "off": false, "n": 3, "x": 1.5, "obj": map[string]any{"k": []any{true, nil}}, "s": "1",
		"we\"ird.key": "q",
	}})
	b := createContact(t, e, map[string]any{"email": "b@example.com", "data": map[string]any{"plan": "free"}})
	c := createContact(t, e, map[string]any{"email": "c@example.com", "data": map[string]any{"other": 1}})

	r := e.Secret("DELETE", "/contacts/fields/data.plan", nil)
	expectStatus(t, r, 200)
	if m := r.JSON(); m["contactsUpdated"] != float64(2) {
		t.Fatalf("delete %s", r.Body)
	}
	want := map[string]any{"vip": true, "off": false, "n": float64(3), "x": 1.5,
		"obj": map[string]any{"k": []any{true, nil}}, "s": "1", "we\"ird.key": "q"}
	if got := getContact(t, e, a.ID).Data; !reflect.DeepEqual(got, want) {
		t.Fatalf("other fields changed:\n got %v\nwant %v", got, want)
	}
	if got := getContact(t, e, b.ID).Data; len(got) != 0 {
		t.Fatalf("b %v", got)
	}
	if got := getContact(t, e, c.ID); got.Data["other"] != float64(1) || got.UpdatedAt != c.UpdatedAt {
		t.Fatalf("c was touched: %+v", got)
	}
	// A key with quotes and dots is deleted by its literal name.
	r = e.Secret("DELETE", "/contacts/fields/"+url.PathEscape("we\"ird.key"), nil)
	expectStatus(t, r, 200)
	if _, ok := getContact(t, e, a.ID).Data["we\"ird.key"]; ok {
		t.Fatal("weird key still there")
	}
	// Numbers keep their exact text.
	r = e.Secret("POST", "/contacts", `{"email":"big@example.com","data":{"big":12345678901234567890,"drop":1}}`)
	expectStatus(t, r, 201)
	expectStatus(t, e.Secret("DELETE", "/contacts/fields/drop", nil), 200)
	if body := string(e.Secret("GET", "/contacts?search=big", nil).Body); !contains(body, `{"big":12345678901234567890}`) {
		t.Fatalf("big number changed: %s", body)
	}
	// The contacts can still be updated and listed as usual.
	r = e.Secret("POST", "/contacts", map[string]any{"email": "a@example.com", "data": map[string]any{"vip": true}})
	expectStatus(t, r, 200)
	if f := contactFields(t, e)["data.vip"]; f.Type != "boolean" {
		t.Fatalf("vip became %v", f)
	}
}
