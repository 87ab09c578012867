package workflow

import (
	"context"
	"sync"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// workflowTriggers keeps, per project, the event names the workflow engine
// wants to see: those that start an enabled EVENT workflow and those a
// WAIT_FOR_EVENT step awaits. Recording an event asks it one question, a
// map lookup, so that a project with fifty workflows listening for other
// names pays nothing more on /v1/track. Any change to a project's workflows
// or steps drops the project's entry after its commit; the next event
// reloads it.
type workflowTriggers struct {
	mu       sync.Mutex
	gen      uint64 // bumped by every invalidation, so a load that raced one is not kept
	projects map[string]*projectTriggers
}

type projectTriggers struct {
	names map[string]bool // trigger and awaited event names
}

func newWorkflowTriggers() *workflowTriggers {
	return &workflowTriggers{projects: map[string]*projectTriggers{}}
}

func (t *workflowTriggers) invalidate(projectID string) {
	t.mu.Lock()
	t.gen++
	delete(t.projects, projectID)
	t.mu.Unlock()
}

// wants reports whether the engine must see events of a name in a project.
// A failure to load the table answers yes: the engine then looks and finds
// nothing to do, rather than missing an enrolment.
func (en *Service) wantsEvent(ctx context.Context, projectID, name string) bool {
	t := en.triggers
	t.mu.Lock()
	p, ok := t.projects[projectID]
	gen := t.gen
	t.mu.Unlock()
	if !ok {
		var err error
		if p, err = en.loadTriggers(ctx, projectID); err != nil {
			en.log.Warn("workflow triggers: load failed", "project", projectID, "err", err)
			return true
		}
		t.mu.Lock()
		if t.gen == gen {
			t.projects[projectID] = p
		}
		t.mu.Unlock()
	}
	return p.names[name]
}

func (en *Service) loadTriggers(ctx context.Context, projectID string) (*projectTriggers, error) {
	r := en.db.Reader()
	wfs, err := storage.EnabledEventWorkflows(ctx, r, projectID)
	if err != nil {
		return nil, err
	}
	waits, err := storage.WaitEventNames(ctx, r, projectID)
	if err != nil {
		return nil, err
	}
	p := &projectTriggers{names: make(map[string]bool, len(wfs)+len(waits))}
	for _, w := range wfs {
		p.names[w.EventName] = true
	}
	for _, n := range waits {
		p.names[n] = true
	}
	return p, nil
}

// changed drops a project's trigger table once the write commits.
func (en *Service) changed(tx *storage.Tx, projectID string) {
	tx.OnCommit(func() { en.triggers.invalidate(projectID) })
}

// NoteEvents hands the engine, inside the write that records them, the
// events it wants: they join its inbox in the same transaction, so a
// committed event is never missed, and the enrolment job runs after the
// commit. Events the engine does not want cost a map lookup each.
func (en *Service) NoteEvents(ctx context.Context, tx *storage.Tx, events ...storage.Event) error {
	noted := false
	for _, ev := range events {
		if ev.ContactID == "" || !en.wantsEvent(ctx, ev.ProjectID, ev.Name) {
			continue
		}
		if err := tx.InsertInbox(ctx, storage.InboxEvent{ProjectID: ev.ProjectID, EventID: ev.ID, ContactID: ev.ContactID,
			Name: ev.Name, Data: ev.Data, CreatedAt: ev.CreatedAt}); err != nil {
			return err
		}
		noted = true
	}
	if !noted {
		return nil
	}
	_, err := en.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobEnrol, UniqueKey: JobEnrol})
	return err
}
