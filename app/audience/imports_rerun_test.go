package audience

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// The writer reruns a group write by write when one of its writes fails.
// An import chunk that shared such a group must land exactly once, with
// counts that match what was stored.
func TestImportChunkSurvivesARerunGroup(t *testing.T) {
	ctx := context.Background()
	a, _, db := newTestService(t)
	p, err := a.accounts.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	const rows = importChunk + 100
	var csv strings.Builder
	csv.WriteString("email\n")
	for i := range rows {
		fmt.Fprintf(&csv, "c%04d@example.com\n", i)
	}
	accepted, err := a.ImportContacts(ctx, p.ID, []byte(csv.String()))
	if err != nil {
		t.Fatal(err)
	}
	job := claimForTest(t, a, accepted.JobID)

	// Hold the writer, queue the import's first chunk and then a write
	// that fails behind it, and let them run as one group.
	release, held := make(chan struct{}), make(chan struct{})
	go func() { _ = db.Write(ctx, func(*storage.Tx) error { close(held); <-release; return nil }) }()
	<-held
	type outcome struct {
		res any
		err error
	}
	done := make(chan outcome, 1)
	go func() { res, err := a.RunImport(ctx, job); done <- outcome{res, err} }()
	time.Sleep(50 * time.Millisecond) // the chunk is queued
	failed := make(chan error, 1)
	go func() { failed <- db.Write(ctx, func(*storage.Tx) error { return errors.New("a failing neighbour") }) }()
	time.Sleep(50 * time.Millisecond) // and the failing write behind it
	close(release)

	if err := <-failed; err == nil {
		t.Fatal("the failing write succeeded")
	}
	out := <-done
	if out.err != nil {
		t.Fatal(out.err)
	}
	res := out.res.(ImportResult)
	n, err := storage.CountContacts(ctx, db.Reader(), storage.ContactFilter{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != rows || n != rows {
		t.Fatalf("import counted %d created, %d contacts stored, want %d", res.Created, n, rows)
	}
}

// claimForTest leases a queued job as the dispatcher would.
func claimForTest(t *testing.T, a *Service, id string) *queue.RunningJob {
	t.Helper()
	var claimed []storage.Job
	now := a.clock.Now()
	err := a.db.Write(context.Background(), func(tx *storage.Tx) error {
		var err error
		claimed, err = tx.ClaimJobs(context.Background(), []string{JobImportContacts}, now, now.Add(time.Hour), 1)
		return err
	})
	if err != nil || len(claimed) != 1 || claimed[0].ID != id {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	return a.jobs.Adopt(claimed[0])
}
