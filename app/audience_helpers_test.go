package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// seedContact stores a contact with chosen times, as an import or an old
// database would have it.
type seedContact struct {
	email      string
	subscribed bool
	created    time.Duration // before now
	updated    time.Duration // before now
	data       string        // JSON object
	events     []seedEvent
}

type seedEvent struct {
	name string
	ago  time.Duration
}

// seed writes contacts and their events in one write and returns the ids
// by email.
func seed(t testing.TB, e *webtest.Env, contacts []seedContact) map[string]string {
	t.Helper()
	now := e.Clock.Now()
	ids := map[string]string{}
	err := e.DB.Write(context.Background(), func(tx *storage.Tx) error {
		for i, c := range contacts {
			id := idFor("c", i)
			ids[c.email] = id
			data := c.data
			if data == "" {
				data = "{}"
			}
			if err := tx.InsertContact(context.Background(), storage.Contact{ID: id, ProjectID: e.Project.ID,
				Email: c.email, Subscribed: c.subscribed, Data: json.RawMessage(data),
				CreatedAt: now.Add(-c.created), UpdatedAt: now.Add(-c.updated)}); err != nil {
				return err
			}
			for j, ev := range c.events {
				if err := tx.InsertEvent(context.Background(), storage.Event{ID: idFor("e", i*1000+j), ProjectID: e.Project.ID,
					ContactID: id, Name: ev.name, Data: json.RawMessage("{}"), CreatedAt: now.Add(-ev.ago)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// idFor makes distinct ids for seeded rows that sort like their numbers.
func idFor(prefix string, n int) string { return fmt.Sprintf("%s-%07d", prefix, n) }

// audienceOf compiles a condition given as JSON.
func audienceOf(t testing.TB, e *webtest.Env, raw string) (audience.Audience, error) {
	t.Helper()
	c, err := audience.ParseCondition(json.RawMessage(raw), "condition")
	if err != nil {
		return audience.Audience{}, err
	}
	return e.App.Audience.ConditionAudience(context.Background(), e.DB.Reader(), e.Project.ID, c)
}

// members returns the sorted contact ids of an audience, and checks that
// every way of reading it agrees: the id list, the count, keyset batches
// and the one-contact test.
func members(t testing.TB, e *webtest.Env, aud audience.Audience, all []string) []string {
	t.Helper()
	ctx := context.Background()
	r := e.DB.Reader()
	ids, err := storage.AudienceIDs(ctx, r, aud)
	if err != nil {
		t.Fatal(err)
	}
	n, err := storage.CountAudience(ctx, r, aud)
	if err != nil || n != len(ids) {
		t.Fatalf("count %d (err %v), ids %d", n, err, len(ids))
	}
	var batched []string
	for after := ""; ; {
		batch, err := storage.AudienceBatch(ctx, r, aud, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range batch {
			batched = append(batched, c.ID)
		}
		if len(batch) < 7 {
			break
		}
		after = batch[len(batch)-1].ID
	}
	if !slices.Equal(batched, ids) {
		t.Fatalf("batches %v, ids %v", batched, ids)
	}
	for _, id := range all {
		has, err := storage.AudienceHas(ctx, r, aud, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, want := slices.BinarySearch(ids, id); has != want {
			t.Fatalf("AudienceHas(%s) = %v, want %v", id, has, want)
		}
	}
	return ids
}
