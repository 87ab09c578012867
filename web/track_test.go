package web_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

type trackResult struct {
	Success bool `json:"success"`
	Data    struct {
		Contact   string `json:"contact"`
		Event     string `json:"event"`
		Timestamp string `json:"timestamp"`
	} `json:"data"`
}

func track(t *testing.T, e *webtest.Env, body any) trackResult {
	t.Helper()
	r := e.Public("POST", "/v1/track", body)
	expectStatus(t, r, 200)
	var res trackResult
	r.Decode(t, &res)
	if !res.Success || res.Data.Contact == "" || res.Data.Event == "" || res.Data.Timestamp == "" {
		t.Fatalf("track result %s", r.Body)
	}
	return res
}

func TestTrackCreatesContactAndEvent(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	res := track(t, e, map[string]any{"email": " New@Example.com", "event": " signed-up ", "data": map[string]any{
		"plan": "pro", "coupon": map[string]any{"value": "X1", "persistent": false}, "email": "x@y.z", "blank": "",
	}})
	if res.Data.Timestamp != "2026-01-15T12:00:00Z" {
		t.Fatalf("timestamp %s", res.Data.Timestamp)
	}
	c := getContact(t, e, res.Data.Contact)
	if c.Email != "new@example.com" || !c.Subscribed || !reflect.DeepEqual(c.Data, map[string]any{"plan": "pro"}) {
		t.Fatalf("contact %+v", c)
	}
	evs := contactEvents(t, e, c.ID)
	if len(evs) != 1 || evs[0].ID != res.Data.Event || evs[0].Name != "signed-up" || evs[0].ContactID != c.ID {
		t.Fatalf("events %+v", evs)
	}
	// The event records what was given, one-shot values included.
	if !reflect.DeepEqual(evs[0].Data, map[string]any{"plan": "pro", "coupon": "X1"}) {
		t.Fatalf("event data %v", evs[0].Data)
	}

	// Tracking again records a new event on the same contact.
	e.Clock.Advance(time.Second)
	res2 := track(t, e, map[string]any{"email": "new@example.com", "event": "signed-up"})
	if res2.Data.Contact != c.ID || res2.Data.Event == res.Data.Event {
		t.Fatalf("second track %+v", res2)
	}
	if n := len(contactEvents(t, e, c.ID)); n != 2 {
		t.Fatalf("%d events", n)
	}
}

func TestTrackSubscription(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	// A new contact tracked with subscribed:false starts unsubscribed.
	res := track(t, e, map[string]any{"email": "a@example.com", "event": "visit", "subscribed": false})
	if c := getContact(t, e, res.Data.Contact); c.Subscribed {
		t.Fatal("subscribed:false ignored for a new contact")
	}
	// Omitted: the state stays.
	track(t, e, map[string]any{"email": "a@example.com", "event": "visit"})
	if c := getContact(t, e, res.Data.Contact); c.Subscribed {
		t.Fatal("an omitted state resubscribed")
	}
	// Explicit true flips, once.
	e.Clock.Advance(time.Millisecond)
	track(t, e, map[string]any{"email": "a@example.com", "event": "optin", "subscribed": true})
	e.Clock.Advance(time.Millisecond)
	track(t, e, map[string]any{"email": "a@example.com", "event": "optin", "subscribed": true})
	e.Clock.Advance(time.Millisecond)
	track(t, e, map[string]any{"email": "a@example.com", "event": "optout", "subscribed": false})
	evs := contactEvents(t, e, res.Data.Contact)
	want := []string{"optout", "contact.unsubscribed", "optin", "optin", "contact.subscribed", "visit", "visit"}
	got := eventNames(evs)
	if countNamed(evs, "contact.subscribed") != 1 || countNamed(evs, "contact.unsubscribed") != 1 || len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestTrackRefusals(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	cases := []struct {
		body        any
		field, code string
	}{
		{map[string]any{"event": "x"}, "email", "invalid_type"},
		{map[string]any{"email": "a@example.com"}, "event", "invalid_type"},
		{map[string]any{"email": "bad", "event": "x"}, "email", "invalid_string"},
		{map[string]any{"email": "a@example.com", "event": ""}, "event", "too_small"},
		{map[string]any{"email": "a@example.com", "event": "   "}, "event", "too_small"},
		{map[string]any{"email": "a@example.com", "event": strings.Repeat("e", 256)}, "event", "too_small"},
		{map[string]any{"email": "a@example.com", "event": "x", "data": "str"}, "data", "invalid_type"},
		{map[string]any{"email": "a@example.com", "event": "x", "subscribed": "no"}, "subscribed", "invalid_type"},
	}
	for _, c := range cases {
		expectField(t, e.Public("POST", "/v1/track", c.body), c.field, c.code)
	}
	for _, name := range []string{"email.sent", "email.anything", "email.", "contact.subscribed", "contact.unsubscribed",
		"segment.vip.entry", "segment.vip-customers.exit", " email.open "} {
		expectField(t, e.Public("POST", "/v1/track", map[string]any{"email": "a@example.com", "event": name}), "event", "reserved_event")
		expectField(t, e.Secret("POST", "/events/track", map[string]any{"email": "a@example.com", "event": name}), "event", "reserved_event")
	}
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("refused tracks created %d contacts", n)
	}
	// Names that only look alike are the caller's.
	for _, name := range []string{"emails.sent", "contact.created", "segment.entry", "segment..entry", "segment.vip", "order.email.sent"} {
		track(t, e, map[string]any{"email": "a@example.com", "event": name})
	}
	expectStatus(t, e.Public("POST", "/v1/track", map[string]any{"email": "a@example.com", "event": strings.Repeat("e", 255)}), 200)
}

func TestEventsEndpoints(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := track(t, e, map[string]any{"email": "a@example.com", "event": "signup"}).Data.Contact
	for i := range 5 {
		e.Clock.Advance(time.Millisecond)
		track(t, e, map[string]any{"email": "b@example.com", "event": "page view", "data": map[string]any{"n": i}})
	}
	e.Clock.Advance(time.Millisecond)
	expectStatus(t, e.Secret("PATCH", "/contacts/"+a, map[string]any{"subscribed": false}), 200)

	// GET /events: newest first, cursor pages, filter by name.
	r := e.Secret("GET", "/events?limit=4", nil)
	var p page[eventJSON]
	r.Decode(t, &p)
	if p.Total != 7 || !p.HasMore || len(p.Data) != 4 || p.Data[0].Name != "contact.unsubscribed" {
		t.Fatalf("first page %s", r.Body)
	}
	var p2 page[eventJSON]
	e.Secret("GET", "/events?limit=4&cursor="+p.Cursor, nil).Decode(t, &p2)
	if p2.Total != 0 || p2.HasMore || len(p2.Data) != 3 || p2.Data[2].Name != "signup" {
		t.Fatalf("second page %+v", p2)
	}
	var named page[eventJSON]
	e.Secret("GET", "/events?name="+url.QueryEscape("page view"), nil).Decode(t, &named)
	if named.Total != 5 || named.Data[0].Data["n"] != float64(4) {
		t.Fatalf("by name %+v", named)
	}

	// Stats, names, usage.
	r = e.Secret("GET", "/events/stats", nil)
	expectStatus(t, r, 200)
	var stats []struct {
		Name  string
		Count int
	}
	r.Decode(t, &stats)
	if len(stats) != 3 || stats[0].Name != "page view" || stats[0].Count != 5 {
		t.Fatalf("stats %s", r.Body)
	}
	r = e.Secret("GET", "/events/names", nil)
	var names []string
	r.Decode(t, &names)
	if !reflect.DeepEqual(names, []string{"contact.unsubscribed", "page view", "signup"}) {
		t.Fatalf("names %s", r.Body)
	}
	r = e.Secret("GET", "/events/"+url.PathEscape("page view")+"/usage", nil)
	if m := r.JSON(); r.Status != 200 || m["name"] != "page view" {
		t.Fatalf("usage %d %s", r.Status, r.Body)
	}
	// Static segments beside the parameter route to their own handlers.
	for _, name := range []string{"stats", "names"} {
		if r := e.Secret("GET", "/events/"+name+"/usage", nil); r.JSON()["name"] != name {
			t.Fatalf("usage of an event named %s: %s", name, r.Body)
		}
	}

	// Contact events: only that contact's, 404 for an unknown one.
	var ce page[eventJSON]
	e.Secret("GET", "/events/contact/"+a, nil).Decode(t, &ce)
	if ce.Total != 2 || ce.Data[0].Name != "contact.unsubscribed" {
		t.Fatalf("contact events %+v", ce)
	}
	expectError(t, e.Secret("GET", "/events/contact/nope", nil), 404, "CONTACT_NOT_FOUND")

	// Delete by name; reserved names are refused.
	expectField(t, e.Secret("DELETE", "/events/contact.unsubscribed", nil), "eventName", "reserved_event")
	r = e.Secret("DELETE", "/events/"+url.PathEscape("page view"), nil)
	expectStatus(t, r, 200)
	if r.JSON()["deleted"] != float64(5) {
		t.Fatalf("delete %s", r.Body)
	}
	expectError(t, e.Secret("DELETE", "/events/"+url.PathEscape("page view"), nil), 404, "NOT_FOUND")
	if n := countEvents(t, e, "contact.unsubscribed"); n != 1 {
		t.Fatalf("reserved events deleted: %d left", n)
	}
	e.Secret("GET", "/events", nil).Decode(t, &p)
	if p.Total != 2 {
		t.Fatalf("%d events left", p.Total)
	}
}

func TestEventsAreProjectScoped(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	p2, err := e.App.Accounts.CreateProject(t.Context(), "Second")
	if err != nil {
		t.Fatal(err)
	}
	track(t, e, map[string]any{"email": "a@example.com", "event": "mine"})
	r := e.Do("GET", "/events", p2.Secret, nil)
	var p page[eventJSON]
	r.Decode(t, &p)
	if p.Total != 0 {
		t.Fatalf("other project sees %s", r.Body)
	}
	expectError(t, e.Do("DELETE", "/events/mine", p2.Secret, nil), 404, "NOT_FOUND")
	if countEvents(t, e, "mine") != 1 {
		t.Fatal("another project deleted the event")
	}
	for _, path := range []string{"/events/stats", "/events/names"} {
		if body := string(e.Do("GET", path, p2.Secret, nil).Body); strings.TrimSpace(body) != "[]" {
			t.Fatalf("%s: %s", path, body)
		}
	}
}
