package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// An email's source is stored as given, else named by its campaign or
// workflow, else "api"; rows from before the column read the same way.
func TestEmailSource(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, source, campaign, workflow, want string }{
		{"e-api", "", "", "", SourceAPI},
		{"e-smtp", SourceSMTP, "", "", SourceSMTP},
		{"e-camp", "", "c1", "", SourceCampaign},
		{"e-flow", "", "", "w1", SourceWorkflow},
	} {
		e := Email{ID: c.id, ProjectID: "p1", CampaignID: c.campaign, WorkflowID: c.workflow, Source: c.source,
			MessageID: "<" + c.id + "@herald.test>", Sender: "a@herald.test", Recipient: "b@example.net",
			Subject: "s", Status: EmailPending, CreatedAt: time.UnixMilli(1_700_000_000_000)}
		if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
			t.Fatal(err)
		}
		got, err := EmailByID(ctx, db.Reader(), c.id)
		if err != nil || got.Source != c.want {
			t.Errorf("%s: source %q, %v; want %q", c.id, got.Source, err, c.want)
		}
		engaged, err := EngagedEmailByID(ctx, db.Reader(), c.id)
		if err != nil || engaged.Source != c.want {
			t.Errorf("%s: engaged source %q, %v; want %q", c.id, engaged.Source, err, c.want)
		}
	}
	// A row written before the column: NULL reads as its ids say.
	if err := db.Write(ctx, func(tx *Tx) error { _, err := tx.Exec(ctx, `UPDATE emails SET source = NULL`); return err }); err != nil {
		t.Fatal(err)
	}
	if got, err := EmailByID(ctx, db.Reader(), "e-camp"); err != nil || got.Source != SourceCampaign {
		t.Errorf("a NULL source reads %q, %v", got.Source, err)
	}
	if got, err := EmailByID(ctx, db.Reader(), "e-smtp"); err != nil || got.Source != SourceAPI {
		t.Errorf("a NULL source reads %q, %v", got.Source, err)
	}
}

// A Message-ID is unique per recipient: a client's Message-ID names each
// recipient's copy of a message submitted over SMTP, and the same
// recipient twice is refused.
func TestMessageIDUniquePerRecipient(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	insert := func(id, to string) error {
		e := Email{ID: id, ProjectID: "p1", MessageID: "<client-1@shop.example>", Sender: "a@shop.example",
			Recipient: to, Subject: "s", Status: EmailPending, Source: SourceSMTP, CreatedAt: time.UnixMilli(1_700_000_000_000)}
		return db.Write(ctx, func(tx *Tx) error { return tx.InsertEmail(ctx, e) })
	}
	if err := insert("e1", "b@example.net"); err != nil {
		t.Fatal(err)
	}
	if err := insert("e2", "a@example.net"); err != nil {
		t.Fatalf("a second recipient of the same Message-ID: %v", err)
	}
	if err := insert("e3", "b@example.net"); err == nil {
		t.Fatal("the same Message-ID and recipient twice was stored")
	}
	got, err := EmailByMessageIDTo(ctx, db.Reader(), "<client-1@shop.example>", "b@example.net")
	if err != nil || got.ID != "e1" {
		t.Fatalf("EmailByMessageIDTo = %s, %v", got.ID, err)
	}
	if got, err = EmailByMessageID(ctx, db.Reader(), "<client-1@shop.example>"); err != nil || got.ID != "e2" {
		t.Fatalf("EmailByMessageID = %s, %v (want the first recipient's)", got.ID, err)
	}
	if _, err := EmailByMessageIDTo(ctx, db.Reader(), "<client-1@shop.example>", "c@example.net"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another recipient: %v", err)
	}
}
