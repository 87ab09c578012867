package storage

import (
	"context"
	"strings"
)

// The signed bytes of an email that reached a final status through
// RecordAttempt (a delivery's outcome) are not deleted in the outcome's
// write but gathered, and deleted bodyDropBatch at a time at the start of
// a later write (every full batch gathered, so that the list stays short
// however many outcomes a transaction holds). A body of some kilobytes spans overflow pages, and its
// delete rewrites the table's and its index's leaves and the freelist:
// about ten WAL frames per message when each outcome deleted its own, a
// few for a whole batch of bodies that were made together and so share
// their pages. Nothing reads a final email's body (EmailBody serves
// attempts, and a final status never goes back), so a late delete changes
// no answer. The ids are kept only once their outcome has committed, and
// dropped from the list only once their delete has; the writes queued
// before Close delete the rest, and the hourly cleanup
// (DropFinishedBodies) those a crash left behind.

// bodyDropBatch is how many bodies one delete takes.
const bodyDropBatch = 64

// dropBodySQL deletes one batch; a batch short of bodyDropBatch ids is
// padded with empty strings, which name no email, so that there is one
// statement.
var dropBodySQL = `DELETE FROM email_bodies WHERE email_id IN (?` + strings.Repeat(", ?", bodyDropBatch-1) + `)`

// bodyDrops are the ids of final emails whose bodies are still stored.
// Only the writer goroutine touches it.
type bodyDrops struct{ ids []string }

// dropBodyLater schedules the deletion of an email's body once this
// write has committed.
func (tx *Tx) dropBodyLater(id string) {
	tx.OnCommit(func() { tx.bodies.ids = append(tx.bodies.ids, id) })
}

// dropBodies deletes the gathered bodies in the current transaction, every
// full batch of them, and the last short one too when all is set. It
// returns how many ids to forget once the transaction commits. A failed
// delete is not the write's failure: its ids stay for the next.
func (tx *Tx) dropBodies(ctx context.Context, all bool) int {
	done := 0
	for {
		n := min(len(tx.bodies.ids)-done, bodyDropBatch)
		if n == 0 || n < bodyDropBatch && !all {
			return done
		}
		if !tx.dropBodyBatch(ctx, tx.bodies.ids[done:done+n]) {
			return done
		}
		done += n
	}
}

// dropBodyBatch deletes the bodies of up to bodyDropBatch emails.
func (tx *Tx) dropBodyBatch(ctx context.Context, ids []string) bool {
	args := make([]any, bodyDropBatch)
	for i := range args {
		args[i] = ""
		if i < len(ids) {
			args[i] = ids[i]
		}
	}
	_, err := tx.Exec(ctx, dropBodySQL, args...)
	return err == nil
}

// forgetDropped removes the first n ids, whose delete has committed.
func (b *bodyDrops) forgetDropped(n int) {
	b.ids = append(b.ids[:0], b.ids[n:]...)
}

// DropFinishedBodies deletes the bodies of emails in a final status that a
// crash left behind (their delete was still gathered). It reads every
// stored body, a small table: only emails waiting for delivery keep one.
func (tx *Tx) DropFinishedBodies(ctx context.Context) (_ int64, err error) {
	defer wrap(&err, "Tx.DropFinishedBodies")
	return affected(tx.Exec(ctx, `DELETE FROM email_bodies WHERE email_id IN
		(SELECT b.email_id FROM email_bodies b JOIN emails e ON e.id = b.email_id
		 WHERE e.status NOT IN ('PENDING', 'SENDING'))`))
}
