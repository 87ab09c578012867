package storage

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// An insert of a contact whose email the project already has changes
// nothing: the first contact, its data and the stored counts stay.
func TestInsertContactIfNewLeavesAnExistingContact(t *testing.T) {
	db := openAudienceDB(t)
	ctx := context.Background()
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	fresh := Contact{ID: "new1", ProjectID: "p", Email: "new@example.com", Data: json.RawMessage(`{"plan":"pro"}`),
		CreatedAt: now, UpdatedAt: now}
	again := fresh
	again.ID, again.Subscribed, again.Data = "new2", true, json.RawMessage(`{"plan":"free"}`)
	var created []bool
	for _, c := range []Contact{fresh, again} {
		err := db.Write(ctx, func(tx *Tx) error {
			ok, err := tx.InsertContactIfNew(ctx, c)
			created = append(created, ok)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !created[0] || created[1] {
		t.Fatalf("created = %v, want [true false]", created)
	}
	got, err := ContactByEmail(ctx, db.Reader(), "p", "new@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "new1" || got.Subscribed || string(got.Data) != `{"plan":"pro"}` {
		t.Fatalf("contact = %+v, want the first one unchanged", got)
	}
	checkStoredCounts(t, db)
}
