package audience

import (
	"context"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/storage"
)

// Event is a tracked or emitted event.
type Event = storage.Event

// EventQuery is GET /events's query.
type EventQuery struct {
	Limit     int
	Cursor    string
	Name      string
	ContactID string
}

// ListEvents returns one page of events, newest first.
func (s *Service) ListEvents(ctx context.Context, projectID string, q EventQuery) (paging.Page[Event], error) {
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Event]{}, err
	}
	f := storage.EventFilter{ProjectID: projectID, Name: q.Name, ContactID: q.ContactID}
	rows, err := storage.ListEvents(ctx, s.db.Reader(), f, after, q.Limit+1)
	if err != nil {
		return paging.Page[Event]{}, err
	}
	page := paging.Paginate(rows, q.Limit, storage.EventCursor)
	if after == nil {
		page.Total, err = storage.CountEvents(ctx, s.db.Reader(), f)
	}
	return page, err
}

// ContactEvents lists a contact's events, newest first.
func (s *Service) ContactEvents(ctx context.Context, projectID string, q EventQuery) (paging.Page[Event], error) {
	if _, err := storage.ContactByID(ctx, s.db.Reader(), projectID, q.ContactID); err != nil {
		return paging.Page[Event]{}, contactErr(err)
	}
	return s.ListEvents(ctx, projectID, q)
}

// EventStats counts events per name.
func (a *Service) EventStats(ctx context.Context, projectID string) ([]storage.NameCount, error) {
	s, err := storage.EventStats(ctx, a.db.Reader(), projectID)
	if s == nil {
		s = []storage.NameCount{}
	}
	return s, err
}

// EventNames lists the distinct event names.
func (s *Service) EventNames(ctx context.Context, projectID string) ([]string, error) {
	n, err := storage.EventNames(ctx, s.db.Reader(), projectID)
	if n == nil {
		n = []string{}
	}
	return n, err
}

// EventUsage says where an event name is referenced.
func (s *Service) EventUsage(ctx context.Context, projectID, name string) (Usage, error) {
	u := emptyUsage(name)
	wfs, err := storage.WorkflowsByEvent(ctx, s.db.Reader(), projectID, name)
	for _, w := range wfs {
		u.Workflows = append(u.Workflows, map[string]string{"id": w.ID, "name": w.Name})
	}
	u.InUse = len(u.Segments)+len(u.Campaigns)+len(u.Templates)+len(u.Workflows) > 0
	return u, err
}

// DeleteEvents deletes every event with a name. Names the service emits
// are refused: their history is the record of what the service did.
func (s *Service) DeleteEvents(ctx context.Context, projectID, name string) (map[string]any, error) {
	if IsReservedEvent(name) {
		return nil, apierr.Invalid(apierr.FieldError{Field: "eventName", Code: "reserved_event",
			Message: "Events the service emits cannot be deleted", Received: name})
	}
	var n int64
	err := s.db.Write(ctx, func(tx *storage.Tx) (err error) {
		n, err = tx.DeleteEventsNamed(ctx, projectID, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apierr.NotFound("NOT_FOUND", "No events named %q", name)
	}
	return map[string]any{"name": name, "deleted": n}, nil
}
