package storage

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func insertTestEmail(t *testing.T, db *DB, id, campaignID string, raw []byte) {
	t.Helper()
	ctx := context.Background()
	e := Email{ID: id, ProjectID: "p1", CampaignID: campaignID, MessageID: "<" + id + "@herald.test>",
		Sender: "a@herald.test", Recipient: "b@example.net", Subject: "s", Status: EmailPending, Raw: raw,
		Links: []string{"https://example.com/x"}, CreatedAt: time.UnixMilli(1_700_000_000_000)}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
		t.Fatal(err)
	}
}

func bodyOf(t *testing.T, db *DB, id string) []byte {
	t.Helper()
	raw, err := EmailBody(context.Background(), db.Reader(), id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The signed bytes live beside the email until it reaches a final state.
func TestEmailBodyKeptUntilFinal(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	raw := bytes.Repeat([]byte("signed message line\r\n"), 2000)
	insertTestEmail(t, db, "e1", "", raw)
	e, err := EmailByID(ctx, db.Reader(), "e1")
	if err != nil || e.Raw != nil || len(e.Links) != 1 || e.Status != EmailPending {
		t.Fatalf("EmailByID = %+v, %v", e, err)
	}
	if got := bodyOf(t, db, "e1"); !bytes.Equal(got, raw) {
		t.Fatal("body differs")
	}
	now := time.UnixMilli(1_700_000_100_000)
	write := func(fn func(tx *Tx) error) {
		if err := db.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailPending, Code: 451}, now)
	})
	if bodyOf(t, db, "e1") == nil {
		t.Fatal("a temporary failure dropped the body")
	}
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailDelivered, Code: 250}, now)
	})
	// The delivered email's body goes with a later write's batch.
	write(func(tx *Tx) error { tx.dropBodies(ctx, true); return nil })
	if bodyOf(t, db, "e1") != nil {
		t.Fatal("a delivered email kept its body")
	}

	insertTestEmail(t, db, "e2", "c1", raw)
	write(func(tx *Tx) error { _, err := tx.CancelCampaignEmails(ctx, "c1", now); return err })
	if bodyOf(t, db, "e2") != nil {
		t.Fatal("a cancelled email kept its body")
	}

	insertTestEmail(t, db, "e3", "", raw)
	write(func(tx *Tx) error { _, err := tx.Exec(ctx, `DELETE FROM projects WHERE id = 'p1'`); return err })
	var n int
	if err := db.Reader().QueryRow(ctx, `SELECT COUNT(*) FROM email_bodies`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d bodies left after the project was deleted (%v)", n, err)
	}
}

// Migration 7 moves the bytes of emails still waiting out of their rows,
// and back down again.
func TestMigrationMovesEmailBodies(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at) VALUES ('p', 'p', 'pk_p', 'sk_p', 0, 0)`)
	for _, id := range []string{"waiting", "delivered"} {
		var raw any = []byte("bytes of " + id)
		if id == "delivered" {
			raw = nil
		}
		exec(`INSERT INTO emails (id, project_id, message_id, sender, recipient, subject, status, raw, created_at, updated_at)
			VALUES (?, 'p', ?, 'a@x.test', 'b@y.test', 's', 'PENDING', ?, 0, 0)`, id, "<"+id+">", raw)
	}
	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatal(err)
	}
	var id, raw string
	if err := conn.QueryRowContext(ctx, `SELECT email_id, raw FROM email_bodies`).Scan(&id, &raw); err != nil ||
		id != "waiting" || raw != "bytes of waiting" {
		t.Fatalf("bodies after up: %q %q %v", id, raw, err)
	}
	if _, err := p.DownTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT raw FROM emails WHERE id = 'waiting'`).Scan(&raw); err != nil || raw != "bytes of waiting" {
		t.Fatalf("raw after down: %q %v", raw, err)
	}
}
