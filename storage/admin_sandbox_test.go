package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Migration 26 on an installation that already has users makes the oldest
// the administrator; down and up again keep the users.
func TestMigrationAdminIsTheOldestUser(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	if _, err := p.UpTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO users (id, email, password_hash, email_verified, created_at, updated_at) VALUES
		('u3', 'c@x.test', 'h', 1, 300, 300), ('u1', 'a@x.test', 'h', 1, 100, 100), ('u2', 'b@x.test', 'h', 1, 200, 200)`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 26); err != nil {
		t.Fatal(err)
	}
	admins := func() string {
		var ids string
		if err := conn.QueryRowContext(ctx, `SELECT group_concat(id) FROM users WHERE admin = 1`).Scan(&ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got := admins(); got != "u1" {
		t.Fatalf("administrators after the upgrade: %q", got)
	}
	// One administrator at most.
	if _, err := conn.ExecContext(ctx, `UPDATE users SET admin = 1 WHERE id = 'u2'`); err == nil {
		t.Fatal("a second administrator was accepted")
	}
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 26); err != nil {
		t.Fatal(err)
	}
	if got := admins(); got != "u1" {
		t.Fatalf("administrators after down and up: %q", got)
	}
}

// The sandbox keeps the newest messages: at most keep of them, and no
// more than maxBytes in all, the newest always.
func TestSandboxMessagesAreBounded(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	start := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	insert := func(i, size int, keep int, maxBytes int64) {
		m := SandboxMessage{ID: fmt.Sprintf("m%02d", i), MailFrom: "a@x.test", HeaderFrom: "a@x.test", Recipients: []string{"b@y.test"},
			Subject: "s", DKIM: "pass", Raw: bytes.Repeat([]byte("x"), size), CreatedAt: start.Add(time.Duration(i) * time.Second)}
		if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertSandboxMessage(ctx, m, keep, maxBytes) }); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		var out []string
		rows, err := db.Reader().Query(ctx, `SELECT id FROM sandbox_messages ORDER BY created_at`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			_ = rows.Scan(&id)
			out = append(out, id)
		}
		return out
	}
	for i := range 5 {
		insert(i, 10, 3, 1000)
	}
	if got := fmt.Sprint(ids()); got != "[m02 m03 m04]" {
		t.Fatalf("by count: %s", got)
	}
	insert(5, 600, 3, 1000) // 600 + 10 + 10 fit; the next does not
	insert(6, 500, 3, 1000)
	if got := fmt.Sprint(ids()); got != "[m06]" {
		t.Fatalf("by bytes: %s", got)
	}
	insert(7, 5000, 3, 1000) // larger than the bound alone: kept, the rest dropped
	if got := fmt.Sprint(ids()); got != "[m07]" {
		t.Fatalf("one message over the bound: %s", got)
	}
}

// Invitations: usable once, until they expire; withdrawn ones still count.
func TestInvitationRows(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	inv := Invitation{TokenHash: "h1", ProjectID: "p", Email: "a@x.test", Role: "MEMBER", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.InsertProject(ctx, Project{ID: "p", Name: "p", Public: "pk_p", Secret: "sk_p", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		return tx.InsertInvitation(ctx, inv)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := UsableInvitation(ctx, db.Reader(), "h1", now); err != nil || got.Email != "a@x.test" || got.InvitedBy != "" {
		t.Fatalf("usable: %+v %v", got, err)
	}
	if _, err := UsableInvitation(ctx, db.Reader(), "h1", now.Add(time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
	_ = db.Write(ctx, func(tx *Tx) error {
		ok, err := tx.UseInvitation(ctx, "h1", now)
		if !ok || err != nil {
			t.Errorf("use: %v %v", ok, err)
		}
		if ok, _ := tx.UseInvitation(ctx, "h1", now); ok {
			t.Error("used twice")
		}
		return nil
	})
	if n, _ := CountInvitationsSince(ctx, db.Reader(), "p", "a@x.test", now.Add(-time.Minute)); n != 1 {
		t.Errorf("count since: %d", n)
	}
}
