package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// TestAudienceDifferential compiles random condition trees over a random
// audience and checks that SQL selects exactly the contacts the in-memory
// model selects; then it edits and deletes contacts (which the triggers
// of contact_values must follow) and checks again.
func TestAudienceDifferential(t *testing.T) {
	seedValue := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seedValue)
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	g := &gen{rng: rand.New(rand.NewPCG(seedValue, 7)), now: e.Clock.Now()}
	m := &model{now: e.Clock.Now(), segments: map[string]map[string]any{}}

	// The race detector gains nothing here (one goroutine) and slows SQLite
	// twentyfold, so it gets a smaller run.
	contacts, before, after := 300, 250, 150
	if raceDetector {
		contacts, before, after = 120, 40, 30
	}
	m.contacts = g.contacts(contacts)
	writeModel(t, e, m.contacts)
	m.static = createSegmentJSON(t, e, `{"name":"Static","type":"STATIC"}`)
	g.static = m.static
	var members []string
	for _, c := range m.contacts {
		if g.rng.IntN(3) == 0 {
			c.staticMember = true
			members = append(members, c.id)
		}
	}
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		_, err := tx.AddSegmentMembers(context.Background(), m.static, members, e.Clock.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		tree := g.tree(1, false)
		id := createSegmentJSON(t, e, `{"name":"Dynamic","condition":`+mustMarshal(tree)+`}`)
		m.segments[id] = decodeJSON(mustMarshal(tree))
		g.dynamic = append(g.dynamic, id)
	}

	checkTrees(t, e, g, m, before)

	e.Clock.Advance(90 * time.Minute)
	g.now, m.now = e.Clock.Now(), e.Clock.Now()
	mutate(t, e, g, m)
	checkTrees(t, e, g, m, after)
}

func checkTrees(t *testing.T, e *webtest.Env, g *gen, m *model, n int) {
	t.Helper()
	ctx := context.Background()
	var live []*modelContact
	for _, c := range m.contacts {
		if !c.deleted {
			live = append(live, c)
		}
	}
	nonEmpty := 0
	for i := range n {
		raw := mustMarshal(g.tree(0, true))
		aud, err := audienceOf(t, e, raw)
		if err != nil {
			t.Fatalf("tree %d does not compile: %v\n%s", i, err, raw)
		}
		got, err := storage.AudienceIDs(ctx, e.DB.Reader(), aud)
		if err != nil {
			t.Fatalf("tree %d: %v\n%s", i, err, raw)
		}
		tree := decodeJSON(raw)
		var want []string
		for _, c := range live {
			if m.matches(c, tree) {
				want = append(want, c.id)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("tree %d: SQL and model disagree\n%s\n%s", i, raw, explainDiff(live, got, want))
		}
		if len(want) > 0 && len(want) < len(live) {
			nonEmpty++
		}
		if count, err := storage.CountAudience(ctx, e.DB.Reader(), aud); err != nil || count != len(want) {
			t.Fatalf("tree %d: count %d (%v), want %d", i, count, err, len(want))
		}
		newest := slices.Clone(want)
		byID := map[string]*modelContact{}
		for _, c := range live {
			byID[c.id] = c
		}
		slices.SortFunc(newest, func(x, y string) int {
			if c := byID[y].created.Compare(byID[x].created); c != 0 {
				return c
			}
			return strings.Compare(y, x)
		})
		// The scan pool counts and pages from bitmaps (storage/bitmap_*.go).
		if count, err := storage.CountAudience(ctx, e.DB.Scanner(), aud); err != nil || count != len(want) {
			t.Fatalf("tree %d: bitmap count %d (%v), want %d\n%s", i, count, err, len(want), raw)
		}
		offset := g.rng.IntN(3)
		if g.rng.IntN(4) == 0 {
			offset = g.rng.IntN(len(live) + 1)
		}
		for _, q := range []storage.Querier{e.DB.Reader(), e.DB.Scanner()} {
			page, err := storage.AudiencePage(ctx, q, aud, offset, 4)
			if err != nil {
				t.Fatalf("tree %d: page: %v", i, err)
			}
			var pageIDs []string
			for _, c := range page {
				pageIDs = append(pageIDs, c.ID)
			}
			if wantPage := newest[min(offset, len(newest)):min(offset+4, len(newest))]; !slices.Equal(pageIDs, wantPage) &&
				!(len(pageIDs) == 0 && len(wantPage) == 0) {
				t.Fatalf("tree %d: page at %d = %v, want %v\n%s", i, offset, pageIDs, wantPage, raw)
			}
		}
		c := live[g.rng.IntN(len(live))]
		if has, err := storage.AudienceHas(ctx, e.DB.Reader(), aud, c.id); err != nil || has != slices.Contains(want, c.id) {
			t.Fatalf("tree %d: AudienceHas(%s) = %v (%v)\n%s", i, c.id, has, err, raw)
		}
	}
	// Random trees mostly select all or nothing only if the generator is
	// off; make sure most of them discriminate.
	if nonEmpty < n/3 {
		t.Fatalf("only %d of %d trees selected a proper subset", nonEmpty, n)
	}
}

func explainDiff(live []*modelContact, got, want []string) string {
	s := ""
	for _, c := range live {
		inGot, inWant := slices.Contains(got, c.id), slices.Contains(want, c.id)
		if inGot != inWant {
			b, _ := json.Marshal(c.data)
			s += fmt.Sprintf("%s sql=%v model=%v email=%s sub=%v created=%s updated=%s data=%s events=%v\n",
				c.id, inGot, inWant, c.email, c.subscribed, c.created.Format(time.RFC3339Nano),
				c.updated.Format(time.RFC3339Nano), b, c.events)
		}
	}
	return s
}

// writeModel stores the model's contacts and events.
func writeModel(t *testing.T, e *webtest.Env, contacts []*modelContact) {
	t.Helper()
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		for _, c := range contacts {
			if err := tx.InsertContact(context.Background(), storedContact(e, c)); err != nil {
				return err
			}
			for j, ev := range c.events {
				if err := insertModelEvent(tx, e, c, j, ev); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func storedContact(e *webtest.Env, c *modelContact) storage.Contact {
	return storage.Contact{ID: c.id, ProjectID: e.Project.ID, Email: c.email, Subscribed: c.subscribed,
		Data: json.RawMessage(mustMarshal(c.data)), CreatedAt: c.created, UpdatedAt: c.updated}
}

func insertModelEvent(tx *storage.Tx, e *webtest.Env, c *modelContact, j int, ev modelEvent) error {
	return tx.InsertEvent(context.Background(), storage.Event{ID: fmt.Sprintf("%s-e%03d", c.id, j), ProjectID: e.Project.ID,
		ContactID: c.id, Name: ev.name, Data: json.RawMessage("{}"), CreatedAt: ev.at})
}

// mutate edits the data of a fifth of the contacts, deletes some, and
// gives others new events.
func mutate(t *testing.T, e *webtest.Env, g *gen, m *model) {
	t.Helper()
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		for _, c := range m.contacts {
			switch g.rng.IntN(20) {
			case 0:
				c.deleted = true
				if _, err := tx.DeleteContact(context.Background(), e.Project.ID, c.id); err != nil {
					return err
				}
			case 1, 2, 3, 4:
				c.data, c.subscribed, c.updated = g.data(), g.rng.IntN(4) > 0, g.now
				if err := tx.UpdateContact(context.Background(), storedContact(e, c)); err != nil {
					return err
				}
			case 5, 6:
				ev := modelEvent{name: g.eventName(), at: g.now.Add(-time.Duration(g.rng.IntN(3600)) * time.Second)}
				c.events = append(c.events, ev)
				if err := insertModelEvent(tx, e, c, len(c.events)-1, ev); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
