package tracking

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/heraldmail/herald/storage"
)

// The emails recently opened or clicked, kept in memory so that an open
// or a click reads nothing on the single writer, and a repeat (answered
// without recording: the once-a-minute rule) reads nothing at all. An
// email is immutable once stored but for two changes: deleting its
// contact clears its contact, and deleting its project deletes it. Both
// go through removed, which makes every kept email stale: the next open
// or click of one reads it again, and a write that holds a stale one
// reads it again inside its transaction, where the deletion is seen, so
// nothing is recorded for a deleted contact or project. Should a deletion
// path forget removed, the event's insert still checks its contact
// (storage's InsertContactEvent): nothing is recorded, and no error.
const (
	maxEngagedEmails = 20_000  // emails kept
	maxEngagedBytes  = 8 << 20 // their approximate size; one larger than a 16th of it is not kept
)

type engagedEmails struct {
	maxCount, maxBytes int

	mu    sync.Mutex
	byID  map[string]*engagedEmail
	ring  []*engagedEmail // the kept emails in the order they were read, n of them from head
	head  int
	n     int
	bytes int

	removals atomic.Uint64 // deletions of contacts or projects begun or committed
	reads    atomic.Int64  // emails read from the database (tests)
}

// engagedEmail is one kept email.
type engagedEmail struct {
	storage.EngagedEmail
	removals uint64 // engagedEmails.removals before it was read
	size     int
	event    eventData
	// opened and clicked: the email's stamp is known to be committed, so
	// a later open or click need not set it (an UPDATE on the writer).
	opened, clicked atomic.Bool
}

func newEngagedEmails(maxCount, maxBytes int) *engagedEmails {
	return &engagedEmails{maxCount: maxCount, maxBytes: maxBytes, byID: map[string]*engagedEmail{}}
}

// get returns an email, kept or read from q; storage.ErrNotFound when it
// does not exist.
func (c *engagedEmails) get(ctx context.Context, q storage.Querier, id string) (*engagedEmail, error) {
	c.mu.Lock()
	m := c.byID[id]
	c.mu.Unlock()
	if m != nil && c.current(m) {
		return m, nil
	}
	return c.read(ctx, q, id, true)
}

// read reads an email from q and keeps it when keep is set. The removals
// are read first: a deletion that commits after the read makes it stale.
func (c *engagedEmails) read(ctx context.Context, q storage.Querier, id string, keep bool) (*engagedEmail, error) {
	removals := c.removals.Load()
	e, err := storage.EngagedEmailByID(ctx, q, id)
	c.reads.Add(1)
	if err != nil {
		return nil, err
	}
	m := &engagedEmail{EngagedEmail: e, removals: removals, event: newEventData(e)}
	m.opened.Store(e.Opened)
	m.clicked.Store(e.Clicked)
	m.size = engagedSize(e, m.event)
	if keep {
		c.keep(m)
	}
	return m, nil
}

// current reports whether m was read after the last contact or project
// deletion.
func (c *engagedEmails) current(m *engagedEmail) bool { return m.removals == c.removals.Load() }

// removed marks every kept email stale, for a write that deletes contacts
// or a project: once in the transaction, so that a write after it in the
// same transaction reads again, and once after the commit, so that a read
// made before the commit is stale too.
func (c *engagedEmails) Removed(tx *storage.Tx) {
	c.removals.Add(1)
	tx.OnCommit(func() { c.removals.Add(1) })
}

// forget drops a kept email (the next open or click of it reads it
// again), for a write that found it stale though no deletion said so. The
// ring gives its size back when it leaves (dropOldest).
func (c *engagedEmails) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}

func (c *engagedEmails) keep(m *engagedEmail) {
	if m.size > c.maxBytes/16 || c.maxCount <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ring == nil {
		c.ring = make([]*engagedEmail, c.maxCount)
	}
	for c.n == len(c.ring) || c.n > 0 && c.bytes+m.size > c.maxBytes {
		c.dropOldest()
	}
	c.ring[(c.head+c.n)%len(c.ring)] = m
	c.n++
	c.bytes += m.size
	c.byID[m.ID] = m
}

// dropOldest forgets the oldest kept email, unless a newer read of the
// same email replaced it (then only its size is given back).
func (c *engagedEmails) dropOldest() {
	m := c.ring[c.head]
	c.ring[c.head] = nil
	c.head = (c.head + 1) % len(c.ring)
	c.n--
	c.bytes -= m.size
	if c.byID[m.ID] == m {
		delete(c.byID, m.ID)
	}
}

// engagedSize approximates the memory an email takes when kept.
func engagedSize(e storage.EngagedEmail, d eventData) int {
	n := 256 + len(e.ID) + len(e.ProjectID) + len(e.ContactID) + len(e.CampaignID) + len(e.TemplateID) +
		len(e.WorkflowID) + len(e.WorkflowExecutionID) + len(e.MessageID) + len(e.Sender) + len(e.Subject) +
		len(d.head) + len(d.tail)
	for _, l := range e.Links {
		n += 16 + len(l)
	}
	return n
}

// target is the target of an email's link; for an open (link < 0),
// nothing.
func (m *engagedEmail) target(link int) (string, error) {
	if link < 0 {
		return "", nil
	}
	if link >= len(m.Links) {
		return "", unknownLink()
	}
	return m.Links[link], nil
}

// stamped reports whether the email's stamp column is known to be set.
func (m *engagedEmail) stamped(column string) bool {
	if column == "opened_at" {
		return m.opened.Load()
	}
	return m.clicked.Load()
}

func (m *engagedEmail) setStamped(column string) {
	if column == "opened_at" {
		m.opened.Store(true)
	} else {
		m.clicked.Store(true)
	}
}
