package web_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

func TestContactUpsert(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	r := e.Secret("POST", "/contacts", map[string]any{"email": "  Ann@Example.COM ", "data": map[string]any{"plan": "pro"}})
	expectStatus(t, r, 201)
	var c contactJSON
	r.Decode(t, &c)
	if c.Email != "ann@example.com" || !c.Subscribed || c.Data["plan"] != "pro" || c.ID == "" {
		t.Fatalf("created %+v", c)
	}
	if c.Meta == nil || !c.Meta.IsNew || c.Meta.IsUpdate {
		t.Fatalf("_meta %s", r.Body)
	}

	e.Clock.Advance(time.Second)
	r = e.Secret("POST", "/contacts", map[string]any{"email": "ANN@example.com", "subscribed": false, "data": map[string]any{"age": 30}})
	expectStatus(t, r, 200)
	var u contactJSON
	r.Decode(t, &u)
	if u.ID != c.ID || u.Subscribed || u.Meta == nil || u.Meta.IsNew || !u.Meta.IsUpdate {
		t.Fatalf("updated %s", r.Body)
	}
	if !reflect.DeepEqual(u.Data, map[string]any{"plan": "pro", "age": float64(30)}) {
		t.Fatalf("data merged to %v", u.Data)
	}
	if u.CreatedAt != c.CreatedAt || u.UpdatedAt == c.UpdatedAt {
		t.Fatalf("times: created %s→%s updated %s→%s", c.CreatedAt, u.CreatedAt, c.UpdatedAt, u.UpdatedAt)
	}
	if got := getContact(t, e, c.ID); got.Subscribed || got.Data["age"] != float64(30) {
		t.Fatalf("stored %+v", got)
	}
	if names := eventNames(contactEvents(t, e, c.ID)); !reflect.DeepEqual(names, []string{"contact.unsubscribed"}) {
		t.Fatalf("events %v", names)
	}
	// A new contact may start unsubscribed; that is no change, so no event.
	n := createContact(t, e, map[string]any{"email": "new@example.com", "subscribed": false})
	if n.Subscribed || len(contactEvents(t, e, n.ID)) != 0 {
		t.Fatalf("new unsubscribed contact: %+v", n)
	}
}

func TestContactCreateRefusals(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, body := range []string{`{}`, `{"email": ""}`, `{"email": "   "}`, `{"email": null}`, ``, `null`} {
		r := e.Secret("POST", "/contacts", body)
		expectStatus(t, r, 400)
		m := r.JSON()
		if msg, ok := m["error"].(string); !ok || msg == "" || len(m) != 1 {
			t.Fatalf("body %q: want a plain {error}, got %s", body, r.Body)
		}
	}
	for _, email := range []string{"nope", "a@", "@b.com", "a b@c.com", "a@b@c.com"} {
		expectField(t, e.Secret("POST", "/contacts", map[string]any{"email": email}), "email", "invalid_string")
	}
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts created", n)
	}
}

func TestContactDataRules(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	c := createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{
		"name": "Ann", "age": 41, "vip": true, "ratio": 0.5, "address": map[string]any{"city": "Oslo"},
		"empty": "", "oneShot": map[string]any{"value": "x", "persistent": false},
		"kept": map[string]any{"value": "y", "persistent": true}, "nothing": nil,
		"id": "i", "herald_id": "h", "herald_email": "he", "email": "e@x.com",
		"unsubscribeUrl": "u", "subscribeUrl": "s", "manageUrl": "m",
	}})
	want := map[string]any{"name": "Ann", "age": float64(41), "vip": true, "ratio": 0.5,
		"address": map[string]any{"city": "Oslo"}, "kept": "y"}
	if !reflect.DeepEqual(c.Data, want) {
		t.Fatalf("data %v\nwant %v", c.Data, want)
	}
	if c.Email != "a@example.com" {
		t.Fatalf("data.email changed the address: %s", c.Email)
	}

	// Empty strings do not overwrite, null deletes, others replace.
	r := e.Secret("PATCH", "/contacts/"+c.ID, map[string]any{"data": map[string]any{
		"name": "", "age": nil, "vip": false, "missing": nil, "id": "x",
		"ratio": map[string]any{"value": 9, "persistent": false},
	}})
	expectStatus(t, r, 200)
	want = map[string]any{"name": "Ann", "vip": false, "ratio": 0.5, "address": map[string]any{"city": "Oslo"}, "kept": "y"}
	if got := getContact(t, e, c.ID); !reflect.DeepEqual(got.Data, want) {
		t.Fatalf("after PATCH %v\nwant %v", got.Data, want)
	}
	// Large and precise numbers come back exactly as given.
	r = e.Secret("POST", "/contacts", `{"email":"a@example.com","data":{"big":12345678901234567890,"pi":3.14159265358979323846}}`)
	expectStatus(t, r, 200)
	if body := string(e.Secret("GET", "/contacts/"+c.ID, nil).Body); !contains(body, `"big":12345678901234567890`) || !contains(body, `"pi":3.14159265358979323846`) {
		t.Fatalf("numbers changed: %s", body)
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestContactPatch(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := createContact(t, e, map[string]any{"email": "a@example.com"})
	b := createContact(t, e, map[string]any{"email": "b@example.com"})

	r := e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"email": " B@EXAMPLE.com"})
	expectError(t, r, 409, "CONFLICT")
	if got := getContact(t, e, a.ID); got.Email != "a@example.com" {
		t.Fatalf("conflicting PATCH changed the email to %s", got.Email)
	}
	expectField(t, e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"email": "bad"}), "email", "invalid_string")
	expectField(t, e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"email": ""}), "email", "invalid_string")
	expectError(t, e.Secret("PATCH", "/contacts/nope", map[string]any{"subscribed": false}), 404, "CONTACT_NOT_FOUND")

	r = e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"email": "A2@example.com", "subscribed": false})
	expectStatus(t, r, 200)
	var got contactJSON
	r.Decode(t, &got)
	if got.Email != "a2@example.com" || got.Subscribed || got.Meta != nil {
		t.Fatalf("patched %s", r.Body)
	}
	// Its own email, in another case, is no conflict.
	expectStatus(t, e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"email": "A2@EXAMPLE.COM"}), 200)
	// The old address is free again.
	expectStatus(t, e.Secret("PATCH", "/contacts/"+b.ID, map[string]any{"email": "a@example.com"}), 200)

	// Subscription flips emit one event each; repeating a state emits none.
	for _, s := range []bool{false, true, true, false, false} {
		expectStatus(t, e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"subscribed": s}), 200)
	}
	names := eventNames(contactEvents(t, e, a.ID))
	want := []string{"contact.unsubscribed", "contact.subscribed", "contact.unsubscribed"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events %v, want %v (newest first)", names, want)
	}
	for _, ev := range contactEvents(t, e, a.ID) {
		if ev.Data["reason"] != "api" {
			t.Fatalf("event data %v", ev.Data)
		}
	}
}

func TestContactDelete(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	c := createContact(t, e, map[string]any{"email": "a@example.com"})
	expectStatus(t, e.Public("POST", "/v1/track", trackReq("a@example.com", "signup")), 200)

	r := e.Secret("DELETE", "/contacts/"+c.ID, nil)
	expectStatus(t, r, 204)
	if len(r.Body) != 0 {
		t.Fatalf("204 with body %q", r.Body)
	}
	expectError(t, e.Secret("GET", "/contacts/"+c.ID, nil), 404, "CONTACT_NOT_FOUND")
	expectError(t, e.Secret("DELETE", "/contacts/"+c.ID, nil), 404, "CONTACT_NOT_FOUND")
	expectError(t, e.Secret("GET", "/events/contact/"+c.ID, nil), 404, "CONTACT_NOT_FOUND")
	if n := countEvents(t, e, "signup"); n != 0 {
		t.Fatalf("deleted contact's events remain: %d", n)
	}
	// The address can be used again, for a new contact.
	n := createContact(t, e, map[string]any{"email": "a@example.com"})
	if n.ID == c.ID || n.Meta == nil || !n.Meta.IsNew {
		t.Fatalf("recreated %+v", n)
	}
}

func TestContactsAreProjectScoped(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	p2, err := e.App.Accounts.CreateProject(t.Context(), "Second")
	if err != nil {
		t.Fatal(err)
	}
	c := createContact(t, e, map[string]any{"email": "a@example.com"})
	// The same address in another project is another contact.
	r := e.Do("POST", "/contacts", p2.Secret, map[string]any{"email": "a@example.com"})
	expectStatus(t, r, 201)
	var c2 contactJSON
	r.Decode(t, &c2)
	if c2.ID == c.ID {
		t.Fatal("projects share a contact")
	}
	for _, call := range []struct{ method, path string }{
		{"GET", "/contacts/" + c.ID}, {"PATCH", "/contacts/" + c.ID}, {"DELETE", "/contacts/" + c.ID},
		{"GET", "/events/contact/" + c.ID},
	} {
		expectError(t, e.Do(call.method, call.path, p2.Secret, map[string]any{"subscribed": false}), 404, "CONTACT_NOT_FOUND")
	}
	if got := getContact(t, e, c.ID); !got.Subscribed {
		t.Fatal("another project changed the contact")
	}
	r = e.Do("POST", "/contacts/lookup", p2.Secret, map[string]any{"emails": []string{"a@example.com", "b@example.com"}})
	if !reflect.DeepEqual(r.JSON()["found"], []any{"a@example.com"}) {
		t.Fatalf("lookup in the other project: %s", r.Body)
	}
}

func TestContactLookup(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	createContact(t, e, map[string]any{"email": "a@example.com"})
	createContact(t, e, map[string]any{"email": "b@example.com"})
	r := e.Secret("POST", "/contacts/lookup", map[string]any{"emails": []string{" A@example.com", "c@example.com", "b@example.com", "a@example.com", "not-an-email"}})
	expectStatus(t, r, 200)
	var res struct{ Found, NotFound []string }
	r.Decode(t, &res)
	if !reflect.DeepEqual(res.Found, []string{"a@example.com", "b@example.com"}) ||
		!reflect.DeepEqual(res.NotFound, []string{"c@example.com", "not-an-email"}) {
		t.Fatalf("lookup %s", r.Body)
	}
	many := make([]string, 501)
	for i := range many {
		many[i] = "x@example.com"
	}
	expectField(t, e.Secret("POST", "/contacts/lookup", map[string]any{"emails": many}), "emails", "too_big")
	expectField(t, e.Secret("POST", "/contacts/lookup", map[string]any{"emails": []string{}}), "emails", "too_small")
	expectField(t, e.Secret("POST", "/contacts/lookup", map[string]any{}), "emails", "too_small")
	expectStatus(t, e.Secret("POST", "/contacts/lookup", map[string]any{"emails": many[:500]}), 200)
}

// Concurrent upserts of one new address create it once; the others update.
func TestConcurrentUpsertsOfOneAddress(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	const n = 20
	statuses := make(chan int, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			statuses <- e.Secret("POST", "/contacts", map[string]any{"email": "Same@example.com", "data": map[string]any{"i": i}}).Status
		}()
		go func() {
			defer wg.Done()
			statuses <- e.Public("POST", "/v1/track", trackReq("same@example.com", "hit")).Status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		switch s {
		case 201:
			created++
		case 200:
		default:
			t.Fatalf("status %d", s)
		}
	}
	if created > 1 || countContacts(t, e) != 1 || countEvents(t, e, "hit") != n {
		t.Fatalf("%d created, %d contacts, %d events", created, countContacts(t, e), countEvents(t, e, "hit"))
	}
}
