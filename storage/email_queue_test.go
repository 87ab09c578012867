package storage

import (
	"context"
	"testing"
	"time"
)

// queueTestEmail inserts a self-queued campaign email, due at created.
func queueTestEmail(t *testing.T, db *DB, id string, created time.Time) {
	t.Helper()
	ctx := context.Background()
	e := Email{ID: id, ProjectID: "p1", CampaignID: "c1", MessageID: "<" + id + "@herald.test>",
		Sender: "a@herald.test", Recipient: id + "@example.net", Subject: "s", Status: EmailPending,
		Raw: []byte("signed"), SelfQueued: true, CreatedAt: created}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
		t.Fatal(err)
	}
}

func emailQueueTest(t *testing.T) (*DB, func(fn func(tx *Tx) error), time.Time) {
	t.Helper()
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	write := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := db.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	return db, write, time.UnixMilli(1_700_000_000_000)
}

func claimEmails(t *testing.T, write func(fn func(tx *Tx) error), now time.Time, lease time.Duration, limit int) []QueuedEmail {
	t.Helper()
	var got []QueuedEmail
	write(func(tx *Tx) (err error) {
		got, err = tx.ClaimQueuedEmails(context.Background(), now, now.Add(lease), limit)
		return err
	})
	return got
}

func dueAtOf(t *testing.T, db *DB, id string) (ms int64, queued bool) {
	t.Helper()
	var v *int64
	if err := db.Reader().QueryRow(context.Background(), `SELECT due_at FROM emails WHERE id = ?`, id).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return 0, false
	}
	return *v, true
}

// A claim takes due emails only, in due order, marks them SENDING, counts
// the attempt and leases them; a second claim finds them taken until the
// lease runs out, when it takes them again with one more attempt.
func TestQueuedEmailClaimLeasesAndExpires(t *testing.T) {
	db, write, t0 := emailQueueTest(t)
	queueTestEmail(t, db, "e1", t0)
	queueTestEmail(t, db, "e2", t0.Add(time.Minute)) // not due at t0
	got := claimEmails(t, write, t0, 10*time.Minute, 5)
	if len(got) != 1 || got[0].ID != "e1" || got[0].Status != EmailSending || got[0].Attempts != 1 ||
		!got[0].LeaseUntil.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("first claim: %+v", got)
	}
	if again := claimEmails(t, write, t0.Add(5*time.Minute), 10*time.Minute, 5); len(again) != 1 || again[0].ID != "e2" {
		t.Fatalf("while e1 is leased: %+v", again)
	}
	// e1's worker died: its lease runs out and it is claimed again.
	got = claimEmails(t, write, t0.Add(10*time.Minute), 10*time.Minute, 1)
	if len(got) != 1 || got[0].ID != "e1" || got[0].Attempts != 2 {
		t.Fatalf("after the lease: %+v", got)
	}
	// The dead attempt's late writes change nothing: its count is stale.
	ctx := context.Background()
	write(func(tx *Tx) error { return tx.RequeueEmail(ctx, "e1", 1, t0.Add(time.Hour), false, t0) })
	var ok bool
	write(func(tx *Tx) (err error) {
		ok, err = tx.ExtendQueuedEmail(ctx, "e1", 1, t0.Add(time.Hour), t0)
		return err
	})
	if due, _ := dueAtOf(t, db, "e1"); ok || due != Millis(t0.Add(20*time.Minute)) {
		t.Fatalf("a stale attempt moved the email: extended %v, due %d", ok, due)
	}
}

// A retry puts the email back PENDING for later; a postponement or a
// shutdown's release also takes the attempt back.
func TestQueuedEmailRequeue(t *testing.T) {
	db, write, t0 := emailQueueTest(t)
	ctx := context.Background()
	queueTestEmail(t, db, "e1", t0)
	claimEmails(t, write, t0, time.Minute, 1)
	write(func(tx *Tx) error { return tx.RequeueEmail(ctx, "e1", 1, t0.Add(time.Hour), false, t0) })
	e, err := EmailByID(ctx, db.Reader(), "e1")
	if due, queued := dueAtOf(t, db, "e1"); err != nil || e.Status != EmailPending || e.Attempts != 1 || !queued || due != Millis(t0.Add(time.Hour)) {
		t.Fatalf("after a retry: %+v %v, due %d", e, err, due)
	}
	if got := claimEmails(t, write, t0.Add(time.Minute), time.Minute, 1); len(got) != 0 {
		t.Fatalf("claimed before its retry time: %+v", got)
	}
	got := claimEmails(t, write, t0.Add(time.Hour), time.Minute, 1)
	write(func(tx *Tx) error { return tx.RequeueEmail(ctx, "e1", got[0].Attempts, t0.Add(time.Hour), true, t0) })
	if e, _ := EmailByID(ctx, db.Reader(), "e1"); e.Attempts != 1 || e.Status != EmailPending {
		t.Fatalf("after an uncounted requeue: %+v", e)
	}
}

// A final status, a give-up or a cancel takes the email out of the queue in
// the statement that sets it; a temporary failure keeps it queued.
func TestFinalStatusLeavesTheQueue(t *testing.T) {
	db, write, t0 := emailQueueTest(t)
	ctx := context.Background()
	for _, id := range []string{"e1", "e2", "e3", "e4"} {
		queueTestEmail(t, db, id, t0)
	}
	claimEmails(t, write, t0, time.Minute, 2) // e1, e2
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailPending, Code: 451}, t0)
	})
	if _, queued := dueAtOf(t, db, "e1"); !queued {
		t.Fatal("a temporary failure left the queue")
	}
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailDelivered, Code: 250}, t0)
	})
	write(func(tx *Tx) error { _, err := tx.FailEmail(ctx, "e2", "gave up", t0); return err })
	write(func(tx *Tx) error { _, err := tx.CancelCampaignEmails(ctx, "c1", t0); return err })
	for _, id := range []string{"e1", "e2", "e3", "e4"} {
		if _, queued := dueAtOf(t, db, id); queued {
			t.Errorf("%s is still queued", id)
		}
	}
	pending, sending, err := QueuedEmailCounts(ctx, db.Reader())
	if err != nil || pending != 0 || sending != 0 {
		t.Fatalf("counts %d %d %v", pending, sending, err)
	}
	if got := claimEmails(t, write, t0.Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed after the end: %+v", got)
	}
}

// A server starting up ends the leases of the attempts the last one left
// running; the counts and the next due time read the queue's index.
func TestExpireEmailLeasesAndCounts(t *testing.T) {
	db, write, t0 := emailQueueTest(t)
	ctx := context.Background()
	queueTestEmail(t, db, "e1", t0)
	queueTestEmail(t, db, "e2", t0.Add(time.Hour))
	claimEmails(t, write, t0, 10*time.Minute, 5)
	pending, sending, err := QueuedEmailCounts(ctx, db.Reader())
	if err != nil || pending != 1 || sending != 1 {
		t.Fatalf("counts %d %d %v", pending, sending, err)
	}
	if next, ok, err := NextQueuedEmailTime(ctx, db.Reader(), t0); err != nil || !ok || !next.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("next time %v %v %v", next, ok, err)
	}
	if next, ok, err := NextQueuedEmailRun(ctx, db.Reader()); err != nil || !ok || !next.Equal(t0.Add(time.Hour)) {
		t.Fatalf("next run %v %v %v", next, ok, err)
	}
	restart := t0.Add(time.Minute)
	write(func(tx *Tx) error {
		n, err := tx.ExpireEmailLeases(ctx, restart)
		if n != 1 {
			t.Errorf("expired %d leases", n)
		}
		return err
	})
	got := claimEmails(t, write, restart, 10*time.Minute, 5)
	if len(got) != 1 || got[0].ID != "e1" || got[0].Attempts != 2 {
		t.Fatalf("after the restart: %+v", got)
	}
	if at, ok, err := OldestQueuedEmail(ctx, db.Reader()); err != nil || !ok || !at.Equal(t0) {
		t.Fatalf("oldest %v %v %v", at, ok, err)
	}
}

// A temporary failure's outcome, written before the dispatcher's retry
// (a write of its own), leaves the email leased: a server that dies
// between the two writes makes it due at its start, not when the lease
// would have run out (TestCampaignResumesAfterKill found it waiting ten
// minutes, PENDING with its lease's end as its due time).
func TestTemporaryOutcomeKeepsTheLeaseUntilTheRetry(t *testing.T) {
	db, write, t0 := emailQueueTest(t)
	ctx := context.Background()
	queueTestEmail(t, db, "e1", t0)
	claimEmails(t, write, t0, 10*time.Minute, 1)
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailPending, Code: 421, Response: "try later"}, t0)
	})
	restart := t0.Add(time.Minute)
	write(func(tx *Tx) error {
		n, err := tx.ExpireEmailLeases(ctx, restart)
		if n != 1 {
			t.Errorf("expired %d leases, want the failed attempt's", n)
		}
		return err
	})
	if got := claimEmails(t, write, restart, 10*time.Minute, 1); len(got) != 1 || got[0].Attempts != 2 {
		t.Fatalf("after the restart: %+v", got)
	}
	// Without a crash the retry makes it PENDING at the backoff's time.
	write(func(tx *Tx) error {
		return tx.RecordAttempt(ctx, "e1", AttemptOutcome{Status: EmailPending, Code: 421}, restart)
	})
	write(func(tx *Tx) error { return tx.RequeueEmail(ctx, "e1", 2, restart.Add(time.Second), false, restart) })
	var status string
	if err := db.Reader().QueryRow(ctx, `SELECT status FROM emails WHERE id = 'e1'`).Scan(&status); err != nil || status != EmailPending {
		t.Fatalf("status after the retry %q %v", status, err)
	}
	if at, ok := dueAtOf(t, db, "e1"); !ok || at != restart.Add(time.Second).UnixMilli() {
		t.Fatalf("due %d %v", at, ok)
	}
}

// Migration 23 goes down by turning the queued emails back into delivery
// jobs, so that none is left unsent by an older herald.
func TestMigrationEmailQueueDown(t *testing.T) {
	ctx := context.Background()
	conn, p := migrationTest(t)
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := conn.ExecContext(ctx, `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at)
		VALUES ('p1', 'p', 'pk', 'sk', 0, 0)`)
	if err != nil {
		t.Fatal(err)
	}
	for i, due := range []any{int64(5), nil} {
		_, err := conn.ExecContext(ctx, `INSERT INTO emails (id, project_id, message_id, sender, recipient, subject, status,
			created_at, updated_at, due_at) VALUES (?, 'p1', ?, 'a@h.test', 'b@e.net', 's', 'PENDING', 1, 1, ?)`,
			[]string{"queued", "jobbed"}[i], []string{"<q>", "<j>"}[i], due)
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.DownTo(ctx, 21); err != nil {
		t.Fatal(err)
	}
	var kind, payload string
	var runAt int64
	err = conn.QueryRowContext(ctx, `SELECT kind, payload, run_at FROM jobs WHERE project_id = 'p1'`).Scan(&kind, &payload, &runAt)
	if err != nil || kind != "email.deliver" || payload != `{"emailId":"queued"}` || runAt != 5 {
		t.Fatalf("after down: %s %s %d %v", kind, payload, runAt, err)
	}
}
