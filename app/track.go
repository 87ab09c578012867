package app

import (
	"context"
	"strings"
	"time"

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

// MaxEventName bounds event names.
const MaxEventName = 255

// IsReservedEvent reports the names only the service may emit.
func IsReservedEvent(name string) bool {
	if strings.HasPrefix(name, "email.") || name == EventSubscribed || name == EventUnsubscribed {
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

func checkEventName(v *Validation, field string, name *string) string {
	if name == nil {
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	}
	n := strings.TrimSpace(*name)
	switch {
	case n == "" || len(n) > MaxEventName:
		v.Add(field, "too_small", "Event name must be 1 to 255 characters", *name)
	case IsReservedEvent(n):
		v.Add(field, "reserved_event", "Event name \""+n+"\" is reserved for events the service emits itself", *name)
	}
	return n
}

func requireEmail(v *Validation, field string, email *string) string {
	if email == nil {
		v.Add(field, "invalid_type", "Required", "undefined")
		return ""
	}
	return checkEmail(v, field, *email)
}

// Track records an event for a contact, creating the contact (subscribed
// unless told otherwise) when it does not exist. The event, the contact
// change and any subscription event commit in one transaction.
func (a *App) Track(ctx context.Context, projectID string, in TrackInput) (TrackResult, error) {
	var v Validation
	email := requireEmail(&v, "email", in.Email)
	name := checkEventName(&v, "event", in.Event)
	checkData(&v, "data", in.Data)
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
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		change, err := a.upsertContact(ctx, tx, projectID, contactUpsert{
			email: email, subscribed: in.Subscribed, newSubscribed: true, data: data, reason: ReasonAPI,
		})
		if err != nil {
			return err
		}
		ev := storage.Event{ID: newID(), ProjectID: projectID, ContactID: change.contact.ID,
			Name: name, Data: eventData, CreatedAt: a.now()}
		res = TrackResult{Contact: ev.ContactID, Event: ev.ID, Timestamp: ev.CreatedAt}
		return a.insertEvent(ctx, tx, ev)
	})
	if err == nil {
		a.metrics.EventTracked()
	}
	return res, err
}
