package web_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

func TestStaticSegmentMembers(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := createContact(t, e, map[string]any{"email": "a@example.com"})
	g := createSegment(t, e, map[string]any{"name": "Beta testers", "type": "STATIC"})
	path := "/segments/" + g.ID + "/members"

	r := e.Secret("POST", path, map[string]any{"emails": []string{" A@Example.com ", "ghost@example.com", "a@example.com"}})
	expectStatus(t, r, 200)
	if m := r.JSON(); m["added"] != 1.0 || m["notFound"] != 1.0 {
		t.Fatalf("add: %s", r.Body)
	}
	r = e.Secret("POST", path, map[string]any{"emails": []string{"a@example.com"}})
	if m := r.JSON(); m["added"] != 0.0 || m["notFound"] != 0.0 {
		t.Fatalf("adding a member again: %s", r.Body)
	}
	r = e.Secret("POST", path, map[string]any{"emails": []string{"ghost@example.com"}, "createMissing": true, "subscribed": false})
	if m := r.JSON(); m["added"] != 1.0 || m["notFound"] != 0.0 {
		t.Fatalf("createMissing: %s", r.Body)
	}
	if got := segmentContactEmails(t, e, g.ID); !slices.Equal(got, []string{"ghost@example.com", "a@example.com"}) {
		t.Fatalf("members: %v", got)
	}
	var ghost page[contactJSON]
	e.Secret("GET", "/contacts?search=ghost", nil).Decode(t, &ghost)
	if len(ghost.Data) != 1 || ghost.Data[0].Subscribed {
		t.Fatalf("created contact: %+v", ghost.Data)
	}
	var seg segmentJSON
	e.Secret("GET", "/segments/"+g.ID, nil).Decode(t, &seg)
	if seg.MemberCount != 2 {
		t.Fatalf("memberCount %d", seg.MemberCount)
	}

	r = e.Secret("DELETE", path, map[string]any{"emails": []string{"a@example.com", "nobody@example.com"}})
	expectStatus(t, r, 200)
	if m := r.JSON(); m["removed"] != 1.0 || len(m) != 1 {
		t.Fatalf("remove: %s", r.Body)
	}
	e.Secret("GET", "/segments/"+g.ID, nil).Decode(t, &seg)
	if seg.MemberCount != 1 {
		t.Fatalf("memberCount after removal %d", seg.MemberCount)
	}
	if evs := contactEvents(t, e, a.ID); countNamed(evs, "segment.beta-testers.entry") != 0 {
		t.Fatalf("an untracked segment emits nothing: %v", eventNames(evs))
	}

	expectField(t, e.Secret("POST", path, map[string]any{"emails": []string{"not-an-email"}}), "emails.0", "invalid_string")
	expectField(t, e.Secret("POST", path, map[string]any{"emails": []string{}}), "emails", "too_big")
	expectError(t, e.Secret("POST", "/segments/nope/members", map[string]any{"emails": []string{"a@example.com"}}), 404, "SEGMENT_NOT_FOUND")

	dynamic := createSegment(t, e, map[string]any{"name": "D", "condition": cond(filter("email", "contains", "@"))})
	expectError(t, e.Secret("POST", "/segments/"+dynamic.ID+"/members", map[string]any{"emails": []string{"a@example.com"}}), 400, "BAD_REQUEST")
	expectError(t, e.Secret("DELETE", "/segments/"+dynamic.ID+"/members", map[string]any{"emails": []string{"a@example.com"}}), 400, "BAD_REQUEST")
	expectError(t, e.Secret("POST", "/segments/"+g.ID+"/compute", nil), 400, "BAD_REQUEST")
}

func TestTrackedStaticSegmentEmits(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := createContact(t, e, map[string]any{"email": "a@example.com"})
	g := createSegment(t, e, map[string]any{"name": "VIP Customers", "type": "STATIC", "trackMembership": true})
	e.Secret("POST", "/segments/"+g.ID+"/members", map[string]any{"emails": []string{"a@example.com"}})
	e.Secret("POST", "/segments/"+g.ID+"/members", map[string]any{"emails": []string{"a@example.com"}})
	e.Secret("DELETE", "/segments/"+g.ID+"/members", map[string]any{"emails": []string{"a@example.com"}})
	evs := contactEvents(t, e, a.ID)
	if countNamed(evs, "segment.vip-customers.entry") != 1 || countNamed(evs, "segment.vip-customers.exit") != 1 {
		t.Fatalf("events: %v", eventNames(evs))
	}
}

func TestSegmentCompute(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	a := createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"spend": 500}})
	b := createContact(t, e, map[string]any{"email": "b@example.com", "data": map[string]any{"spend": 900}})
	c := createContact(t, e, map[string]any{"email": "c@example.com", "data": map[string]any{"spend": 10}})
	g := createSegment(t, e, map[string]any{"name": "VIP Customers!", "trackMembership": true,
		"condition": cond(filter("data.spend", "greaterThan", 100))})
	if g.MemberCount != 2 {
		t.Fatalf("count at creation: %d", g.MemberCount)
	}
	compute := func(added, removed, total int) {
		t.Helper()
		r := e.Secret("POST", "/segments/"+g.ID+"/compute", nil)
		expectStatus(t, r, 200)
		want := fmt.Sprintf(`{"added":%d,"removed":%d,"total":%d}`, added, removed, total)
		if got := r.JSON(); fmt.Sprintf(`{"added":%v,"removed":%v,"total":%v}`, got["added"], got["removed"], got["total"]) != want {
			t.Fatalf("compute: %s, want %s", r.Body, want)
		}
	}
	compute(2, 0, 2)
	compute(0, 0, 2)

	// b drops out, c comes in; refresh changes only the count.
	e.Clock.Advance(time.Minute)
	e.Secret("PATCH", "/contacts/"+b.ID, map[string]any{"data": map[string]any{"spend": 50}})
	e.Secret("PATCH", "/contacts/"+c.ID, map[string]any{"data": map[string]any{"spend": 101}})
	r := e.Secret("POST", "/segments/"+g.ID+"/refresh", nil)
	expectStatus(t, r, 200)
	if r.JSON()["memberCount"] != 2.0 || len(contactEvents(t, e, c.ID)) != 0 {
		t.Fatalf("refresh must only count: %s", r.Body)
	}
	compute(1, 1, 2)
	compute(0, 0, 2)

	evs := contactEvents(t, e, a.ID)
	if !slices.Equal(eventNames(evs), []string{"segment.vip-customers.entry"}) {
		t.Fatalf("a: %v", eventNames(evs))
	}
	if d := evs[0].Data; d["segmentId"] != g.ID || d["segmentName"] != "VIP Customers!" {
		t.Fatalf("event data: %v", d)
	}
	if got := eventNames(contactEvents(t, e, b.ID)); !slices.Equal(got, []string{"segment.vip-customers.exit", "segment.vip-customers.entry"}) {
		t.Fatalf("b: %v", got)
	}
	if got := eventNames(contactEvents(t, e, c.ID)); !slices.Equal(got, []string{"segment.vip-customers.entry"}) {
		t.Fatalf("c: %v", got)
	}
	untracked := createSegment(t, e, map[string]any{"name": "U", "condition": cond(filter("data.spend", "exists", nil))})
	expectError(t, e.Secret("POST", "/segments/"+untracked.ID+"/compute", nil), 400, "BAD_REQUEST")
	expectError(t, e.Secret("POST", "/segments/nope/compute", nil), 404, "SEGMENT_NOT_FOUND")
	expectError(t, e.Secret("POST", "/segments/nope/refresh", nil), 404, "SEGMENT_NOT_FOUND")
}

func TestSegmentBackgroundJob(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	a := createContact(t, e, map[string]any{"email": "a@example.com", "data": map[string]any{"vip": true}})
	tracked := createSegment(t, e, map[string]any{"name": "VIP", "trackMembership": true,
		"condition": cond(filter("data.vip", "equals", true))})
	counted := createSegment(t, e, map[string]any{"name": "Everyone", "condition": cond(filter("email", "contains", "@"))})
	createContact(t, e, map[string]any{"email": "b@example.com"})

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// advance moves the clock to the job's next run, once the job has
	// finished its current one (a run that ends after the move would
	// schedule the next one from the moved clock).
	advance := func() {
		t.Helper()
		waitFor("the job to be queued", func() bool {
			var state string
			var runAt int64
			err := e.DB.Reader().QueryRow(context.Background(), `SELECT state, run_at FROM jobs WHERE kind = ?`,
				audience.JobSegments).Scan(&state, &runAt)
			return err == nil && state == "queued" && runAt > storage.Millis(e.Clock.Now())
		})
		e.Clock.Advance(audience.SegmentRefreshEvery)
	}
	memberCount := func(id string) int {
		var g segmentJSON
		e.Secret("GET", "/segments/"+id, nil).Decode(t, &g)
		return g.MemberCount
	}
	advance()
	waitFor("the first run", func() bool { return memberCount(counted.ID) == 2 })
	waitFor("the entry event", func() bool { return countNamed(contactEvents(t, e, a.ID), "segment.vip.entry") == 1 })

	e.Secret("PATCH", "/contacts/"+a.ID, map[string]any{"data": map[string]any{"vip": false}})
	advance()
	waitFor("the exit event", func() bool { return countNamed(contactEvents(t, e, a.ID), "segment.vip.exit") == 1 })
	// A third run (seen through the count of the segment after the
	// tracked one) reports nothing new.
	createContact(t, e, map[string]any{"email": "c@example.com"})
	advance()
	waitFor("a third run", func() bool { return memberCount(counted.ID) == 3 })
	if memberCount(tracked.ID) != 0 {
		t.Fatal("the tracked segment should be empty")
	}
	if evs := contactEvents(t, e, a.ID); len(evs) != 2 {
		t.Fatalf("a change is reported once: %v", eventNames(evs))
	}
}
