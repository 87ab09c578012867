package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func countBodies(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow(context.Background(), `SELECT COUNT(*) FROM email_bodies`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func deliverForTest(t *testing.T, db *DB, id string) {
	t.Helper()
	ctx := context.Background()
	err := db.Write(ctx, func(tx *Tx) error {
		return tx.RecordAttempt(ctx, id, AttemptOutcome{Status: EmailDelivered, Code: 250}, time.UnixMilli(1_700_000_100_000))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A delivered email's body is deleted with a later write, a batch at a
// time; the writes queued before Close delete the rest.
func TestFinalBodiesAreDroppedInBatches(t *testing.T) {
	ctx := context.Background()
	dir := testLocation(t)
	db, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	const n = bodyDropBatch + 3
	for i := range n + 1 {
		insertTestEmail(t, db, fmt.Sprintf("e%03d", i), "c1", []byte("signed bytes"))
	}
	for i := range n {
		deliverForTest(t, db, fmt.Sprintf("e%03d", i))
	}
	// The last outcome's write deleted the first full batch.
	if got, want := countBodies(t, db), n+1-bodyDropBatch; got != want {
		t.Fatalf("%d bodies stored after %d outcomes, want %d", got, n, want)
	}
	if bodyOf(t, db, fmt.Sprintf("e%03d", n)) == nil {
		t.Fatal("the waiting email lost its body")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := countBodies(t, db); got != 1 {
		t.Fatalf("%d bodies stored after Close, want only the waiting email's", got)
	}
}

// An outcome that rolls back schedules no delete: the email still waits,
// with its body.
func TestRolledBackOutcomeKeepsTheBody(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	for i := range bodyDropBatch + 1 {
		insertTestEmail(t, db, fmt.Sprintf("e%03d", i), "", []byte("signed bytes"))
	}
	failing := errors.New("a later statement failed")
	for i := range bodyDropBatch {
		err := db.Write(ctx, func(tx *Tx) error {
			if err := tx.RecordAttempt(ctx, fmt.Sprintf("e%03d", i), AttemptOutcome{Status: EmailDelivered}, time.Now()); err != nil {
				return err
			}
			return failing
		})
		if !errors.Is(err, failing) {
			t.Fatal(err)
		}
	}
	deliverForTest(t, db, "e064")
	deliverForTest(t, db, "e064")
	if got := countBodies(t, db); got != bodyDropBatch+1 {
		t.Fatalf("%d bodies stored, want %d: rolled back outcomes dropped bodies", got, bodyDropBatch+1)
	}
}

// The cleanup's sweep deletes the bodies of final emails a crash kept,
// and only those.
func TestDropFinishedBodiesSweepsWhatACrashKept(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	insertTestEmail(t, db, "waiting", "", []byte("signed bytes"))
	insertTestEmail(t, db, "delivered", "", []byte("signed bytes"))
	deliverForTest(t, db, "delivered") // gathered, not yet deleted
	var swept int64
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		swept, err = tx.DropFinishedBodies(ctx)
		return err
	})
	if err != nil || swept != 1 {
		t.Fatalf("swept %d bodies (%v), want 1", swept, err)
	}
	if bodyOf(t, db, "waiting") == nil || bodyOf(t, db, "delivered") != nil {
		t.Fatal("the sweep took the wrong body")
	}
}

// Outcomes committed together are dropped together: the next write
// deletes every full batch, so the gathered list stays short.
func TestManyOutcomesInOneWriteAreDroppedByTheNext(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	const n = 2*bodyDropBatch + 5
	for i := range n {
		insertTestEmail(t, db, fmt.Sprintf("e%03d", i), "", []byte("signed bytes"))
	}
	err := db.Write(ctx, func(tx *Tx) error {
		for i := range n {
			if err := tx.RecordAttempt(ctx, fmt.Sprintf("e%03d", i), AttemptOutcome{Status: EmailDelivered}, time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	insertTestEmail(t, db, "next", "", []byte("signed bytes"))
	if got := countBodies(t, db); got != 5+1 {
		t.Fatalf("%d bodies stored, want the short batch's 5 and the new email's", got)
	}
}
