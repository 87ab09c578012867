package audience

import (
	"context"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// TrackInput is the body of POST /v1/track and POST /events/track.
type TrackInput struct {
	Email      *string
	Event      *string
	Subscribed *bool
	Data       map[string]any
}

// TrackResult is {contact, event, timestamp}.
type TrackResult struct {
	Contact   string    `json:"contact"`
	Event     string    `json:"event"`
	Timestamp time.Time `json:"timestamp"`
}

// IsReservedEvent reports the names only the service may emit.
func IsReservedEvent(name string) bool {
	if strings.HasPrefix(name, "email.") || name == event.EventSubscribed || name == event.EventUnsubscribed {
		return true
	}
	switch name { // the workflow engine's activity items
	case "workflow.started", "workflow.completed", "workflow.exited", "workflow.failed", "workflow.cancelled":
		return true
	}
	if rest, ok := strings.CutPrefix(name, "segment."); ok {
		slug, ok := strings.CutSuffix(rest, ".entry")
		if !ok {
			slug, ok = strings.CutSuffix(rest, ".exit")
		}
		return ok && slug != ""
	}
	return false
}

func checkEventName(v *apierr.Validation, field string, name *string) string {
	if name == nil {
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	}
	n := strings.TrimSpace(*name)
	switch {
	case n == "" || len(n) > event.MaxEventName:
		v.Add(field, "too_small", "Event name must be 1 to 255 characters", *name)
	case IsReservedEvent(n):
		v.Add(field, "reserved_event", "Event name \""+n+"\" is reserved for events the service emits itself", *name)
	}
	return n
}

func requireEmail(v *apierr.Validation, field string, email *string) string {
	if email == nil {
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	}
	return verify.CheckEmail(v, field, *email)
}

// Track records an event for a contact, creating the contact (subscribed
// unless told otherwise) when it does not exist. The event, the contact
// change and any subscription event commit in one transaction.
func (s *Service) Track(ctx context.Context, projectID string, in TrackInput) (TrackResult, error) {
	var v apierr.Validation
	email := requireEmail(&v, "email", in.Email)
	name := checkEventName(&v, "event", in.Event)
	CheckData(&v, "data", in.Data)
	if err := v.Err(); err != nil {
		return TrackResult{}, err
	}
	data := ParseData(in.Data)
	eventData, err := data.EventJSON()
	if err != nil {
		return TrackResult{}, err
	}
	if len(data.oneShot) == 0 {
		data = data.withSetJSON(eventData) // the event's data is then exactly what it sets
	}
	var res TrackResult
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		change, err := s.UpsertInTx(ctx, tx, projectID, ContactUpsert{
			Email: email, Subscribed: in.Subscribed, NewSubscribed: true, Data: data, Reason: event.ReasonAPI,
		})
		if err != nil {
			return err
		}
		ev := storage.Event{ID: ids.New(), ProjectID: projectID, ContactID: change.Contact.ID,
			Name: name, Data: eventData, CreatedAt: s.now()}
		res = TrackResult{Contact: ev.ContactID, Event: ev.ID, Timestamp: ev.CreatedAt}
		return s.events.InsertEvent(ctx, tx, ev)
	})
	if err == nil {
		s.metrics.EventTracked()
	}
	return res, err
}
