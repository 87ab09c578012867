package event

import (
	"context"

	"github.com/heraldmail/herald/storage"
)

// Subscriber is handed, inside the write that records them, the events
// just recorded; its changes commit or roll back with them.
type Subscriber func(ctx context.Context, tx *storage.Tx, events ...storage.Event) error

// Options are a Service's subscribers. app.New wires them: the workflow
// engine's enrolment (which events start or resume executions).
type Options struct {
	Subscribers []Subscriber
}

// Service records events. Every event Herald writes goes through it, so
// that every subscriber sees it in the same transaction.
type Service struct {
	subscribers []Subscriber
}

// New returns a Service handing events to o's subscribers.
func New(o Options) *Service { return &Service{subscribers: o.Subscribers} }

// NoteEvents hands events that the caller wrote itself (in a batch, say)
// to the subscribers, inside that write.
func (s *Service) NoteEvents(ctx context.Context, tx *storage.Tx, events ...storage.Event) error {
	for _, sub := range s.subscribers {
		if err := sub(ctx, tx, events...); err != nil {
			return err
		}
	}
	return nil
}

// InsertEvent records an event and hands it to the subscribers.
func (s *Service) InsertEvent(ctx context.Context, tx *storage.Tx, ev storage.Event) error {
	if err := tx.InsertEvent(ctx, ev); err != nil {
		return err
	}
	return s.NoteEvents(ctx, tx, ev)
}
