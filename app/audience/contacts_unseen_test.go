package audience

import (
	"context"
	"testing"

	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

// A send whose preview found no contact, where one with the email came in
// before its write, upserts that contact as if it had been seen: no second
// contact, the data merged into the one stored.
func TestUpsertOfAnUnseenContactThatCameInMeanwhile(t *testing.T) {
	a, _, _ := newTestService(t)
	ctx := context.Background()
	p, err := a.accounts.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	addr := "ada@example.net"
	first, err := a.UpsertContact(ctx, p.ID, UpsertContactInput{Email: &addr})
	if err != nil {
		t.Fatal(err)
	}
	projectID, contactID := p.ID, first.ID
	var change ContactChange
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		change, err = a.UpsertInTx(ctx, tx, projectID, ContactUpsert{Email: "ada@example.net", ID: ids.New(),
			Data: ParseData(map[string]any{"plan": "pro"}), Reason: event.ReasonAPI, Unseen: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if change.Created || !change.Updated || change.Contact.ID != contactID {
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
