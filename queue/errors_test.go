package queue_test

import (
	"context"
	"errors"
	"testing"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// An error leaving queue names the operation that failed, and its cause
// stays reachable with errors.Is.
func TestErrorsNameTheOperation(t *testing.T) {
	q := newQueue(t)
	d, err := queue.New(queue.Options{DB: q.db, Clock: q.clock, Lanes: []queue.Lane{{Name: "default"}},
		Kinds: []queue.Kind{{Name: "k", Lane: "default", Run: noop, GiveUp: queue.Then(hook)}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	err = q.db.Write(ctx, func(tx *storage.Tx) error {
		_, err := d.Enqueue(ctx, tx, queue.JobSpec{Kind: "nope", ProjectID: q.project})
		return err
	})
	if err == nil || err.Error() != `queue.Dispatcher.Enqueue: no handler for job kind "nope"` {
		t.Fatalf("unknown kind: %v", err)
	}

	if err := q.db.Close(); err != nil {
		t.Fatal(err)
	}
	err = d.RecoverInterrupted(ctx)
	if !errors.Is(err, storage.ErrClosed) ||
		err.Error() != "queue.Dispatcher.RecoverInterrupted: storage.DB.Write: database closed" {
		t.Fatalf("closed database: %v", err)
	}
}
