package app

import (
	"context"
	"testing"

	"github.com/heraldmail/herald/storage"
)

// A send whose preview found no contact, where one with the email came in
// before its write, upserts that contact as if it had been seen: no second
// contact, the data merged into the one stored.
func TestUpsertOfAnUnseenContactThatCameInMeanwhile(t *testing.T) {
	a, _, projectID, contactID, _ := engageApp(t)
	ctx := context.Background()
	var change contactChange
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		change, err = a.upsertContact(ctx, tx, projectID, contactUpsert{email: "ada@example.net", id: newID(),
			data: ParseData(map[string]any{"plan": "pro"}), reason: ReasonAPI, unseen: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if change.created || !change.updated || change.contact.ID != contactID {
		t.Fatalf("change = %+v, want the existing contact %s updated", change, contactID)
	}
	c, err := storage.ContactByEmail(ctx, a.db.Reader(), projectID, "ada@example.net")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != contactID || string(c.Data) != `{"plan":"pro"}` {
		t.Fatalf("stored contact = %s %s", c.ID, c.Data)
	}
}
