package audience

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Bulk actions on contacts.
const (
	BulkSubscribe   = "subscribe"
	BulkUnsubscribe = "unsubscribe"
	BulkDelete      = "delete"
)

// MaxBulkContacts is the most contact ids one bulk request takes.
const MaxBulkContacts = 1000

type bulkPayload struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
}

// BulkResult counts what a bulk job did.
type BulkResult struct {
	Updated   *int `json:"updated,omitempty"`
	Unchanged *int `json:"unchanged,omitempty"`
	Deleted   *int `json:"deleted,omitempty"`
	NotFound  int  `json:"notFound"`
}

// BulkContacts validates the ids and queues the action.
func (s *Service) BulkContacts(ctx context.Context, projectID, action string, ids []string) (JobAccepted, error) {
	var v apierr.Validation
	switch {
	case len(ids) == 0:
		v.Add("contactIds", "too_small", "Give at least one contact id", ids)
	case len(ids) > MaxBulkContacts:
		v.Add("contactIds", "too_big", "Give at most 1000 contact ids", len(ids))
	}
	for i, id := range ids {
		if id == "" {
			v.Add(apierr.FieldPath("contactIds", i), "invalid_string", "Contact id must not be empty", id)
		}
	}
	if err := v.Err(); err != nil {
		return JobAccepted{}, err
	}
	var id string
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		id, err = s.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobBulkContacts, ProjectID: projectID,
			Payload: bulkPayload{Action: action, IDs: ids}})
		return err
	})
	return JobAccepted{JobID: id}, err
}

// runBulk applies the action to every contact in one write: at most 1000
// rows, and all-or-nothing, so a rerun after a crash starts clean.
func (s *Service) RunBulk(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p bulkPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	var res BulkResult
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		contacts, err := storage.ContactsByIDs(ctx, tx, job.ProjectID, p.IDs)
		if err != nil {
			return err
		}
		res = BulkResult{NotFound: len(uniqueStrings(p.IDs)) - len(contacts)}
		if p.Action == BulkDelete {
			return s.BulkDelete(ctx, tx, contacts, &res)
		}
		return s.bulkSubscription(ctx, tx, contacts, p.Action == BulkSubscribe, &res)
	})
	return res, err
}

func (s *Service) BulkDelete(ctx context.Context, tx *storage.Tx, contacts []storage.Contact, res *BulkResult) error {
	n := 0
	s.contactsRemoved(tx)
	for _, c := range contacts {
		if _, err := tx.DeleteContact(ctx, c.ProjectID, c.ID); err != nil {
			return err
		}
		n++
	}
	res.Deleted = &n
	return nil
}

func (s *Service) bulkSubscription(ctx context.Context, tx *storage.Tx, contacts []storage.Contact, subscribe bool, res *BulkResult) error {
	updated, unchanged := 0, 0
	now := s.now()
	for _, c := range contacts {
		if c.Subscribed == subscribe {
			unchanged++
			continue
		}
		c.Subscribed, c.UpdatedAt = subscribe, now
		if err := tx.UpdateContact(ctx, c); err != nil {
			return err
		}
		if err := s.EmitSubscription(ctx, tx, c, event.ReasonBulk, now); err != nil {
			return err
		}
		updated++
	}
	res.Updated, res.Unchanged = &updated, &unchanged
	return nil
}

// JobStatus is the state of an import or bulk job.
type JobStatus struct {
	ID           string          `json:"id"`
	State        string          `json:"state"` // queued | active | completed | failed
	Progress     int             `json:"progress"`
	Result       json.RawMessage `json:"result"`
	FailedReason *string         `json:"failedReason"`
}

// JobStatus returns a project's job of the given kind.
func (a *Service) JobStatus(ctx context.Context, projectID, kind, id string) (JobStatus, error) {
	j, err := storage.JobByID(ctx, a.db.Reader(), projectID, id)
	if errors.Is(err, storage.ErrNotFound) || err == nil && j.Kind != kind {
		return JobStatus{}, apierr.NotFound("NOT_FOUND", "Job not found")
	}
	if err != nil {
		return JobStatus{}, err
	}
	s := JobStatus{ID: j.ID, State: j.State, Progress: j.Progress, Result: j.Result}
	if s.Result == nil {
		s.Result = json.RawMessage("null")
	}
	if j.FailedReason != "" && j.State == storage.JobFailed {
		s.FailedReason = &j.FailedReason
	}
	return s, nil
}

func uniqueStrings(s []string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}

// JobBulkContacts is a bulk change of contacts. A kind's name is stored in
// its jobs' rows: never rename one.
const JobBulkContacts = "contacts.bulk"
