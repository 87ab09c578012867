package workflow

import (
	"context"

	"github.com/heraldmail/herald/storage"
)

// stepWriter is where a moving execution writes its step executions, its
// own state and its workflow.* items: the write's transaction itself, or,
// for a batch of due executions, a storage.WorkflowWrites that the batch
// flushes with multi-row statements at the end of the same write. Either
// way the rows commit with the step's effect, in one transaction.
type stepWriter interface {
	SaveStepExec(ctx context.Context, x storage.StepExecution) error
	SaveExecution(ctx context.Context, x storage.Execution) error
	InsertEventIfContact(ctx context.Context, e storage.Event) error
}

// writer is where r writes: its batch's gathered writes, else tx.
func (r *execRun) writer(tx *storage.Tx) stepWriter {
	if r.out != nil {
		return r.out
	}
	return tx
}

// batchContacts holds the contacts of a batch's executions for the length
// of its write: read together the first time a step needs one, kept in
// step with the batch's own updates. Nothing else writes contacts inside
// the batch's function, so the copy stays exact until its end.
type batchContacts struct {
	ids    []string
	loaded bool
	byID   map[string]storage.Contact
}

func newBatchContacts(xs []storage.Execution) *batchContacts {
	b := &batchContacts{byID: map[string]storage.Contact{}}
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x.ContactID] {
			seen[x.ContactID] = true
			b.ids = append(b.ids, x.ContactID)
		}
	}
	return b
}

// contact finds a contact of the project as storage.ContactByID would.
func (b *batchContacts) contact(ctx context.Context, tx *storage.Tx, projectID, id string) (storage.Contact, error) {
	if !b.loaded {
		cs, err := storage.ContactsByIDsAny(ctx, tx, b.ids)
		if err != nil {
			return storage.Contact{}, err
		}
		for _, c := range cs {
			b.byID[c.ID] = c
		}
		b.loaded = true
	}
	c, ok := b.byID[id]
	if !ok { // gone, or not one of the batch's: ask the table
		return storage.ContactByID(ctx, tx, projectID, id)
	}
	if c.ProjectID != projectID {
		return storage.Contact{}, storage.ErrNotFound
	}
	return c, nil
}

// updated records a contact the batch has just written.
func (b *batchContacts) updated(c storage.Contact) {
	if b.loaded {
		b.byID[c.ID] = c
	}
}
