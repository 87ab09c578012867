package tracking

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/storage"
)

// Preferences is what the subscription pages show.
type Preferences struct {
	Email       string
	Subscribed  bool
	ProjectName string
	Test        bool // the link came in a campaign's test send: it changes nothing
}

// testSendContact is the contact a test send's links name: no contact
// has it (contact ids are UUIDs), so the pages can say the email was a
// test instead of "this contact no longer exists", and a test sent to a
// real contact's address cannot unsubscribe them.
const TestSendContact = "test-send"

// testPreferences answers the pages for a test send's links.
func (s *Service) testPreferences(ctx context.Context, projectID string) (Preferences, error) {
	p, err := storage.ProjectByID(ctx, s.db.Reader(), projectID)
	if errors.Is(err, storage.ErrNotFound) {
		return Preferences{Test: true}, nil
	}
	return Preferences{Test: true, ProjectName: p.Name}, err
}

// openContactToken opens a contact link token. It runs before any write:
// the first token checked after a start loads the signing key, which may
// write it, and a write cannot wait for another.
func (s *Service) openContactToken(ctx context.Context, token string) (projectID, contactID string, err error) {
	payload, err := s.openToken(ctx, tokenContact, token)
	if err != nil {
		if errors.Is(err, ErrBadToken) {
			return "", "", apierr.NotFound("NOT_FOUND", "This link is not valid")
		}
		return "", "", err
	}
	projectID, rest, ok := cutID(payload)
	contactID, rest, ok2 := cutID(rest)
	if !ok || !ok2 || len(rest) != 0 {
		return "", "", apierr.NotFound("NOT_FOUND", "This link is not valid")
	}
	return projectID, contactID, nil
}

// contactByToken reads the contact a link token names, and its project.
func (s *Service) contactByToken(ctx context.Context, q storage.Querier, projectID, contactID string) (storage.Contact, storage.Project, error) {
	c, err := storage.ContactByID(ctx, q, projectID, contactID)
	if errors.Is(err, storage.ErrNotFound) {
		return c, storage.Project{}, apierr.NotFound("CONTACT_NOT_FOUND", "This contact no longer exists")
	}
	if err != nil {
		return c, storage.Project{}, err
	}
	p, err := storage.ProjectByID(ctx, q, projectID)
	return c, p, err
}

// PreferencesByToken reads the contact behind a link.
func (s *Service) PreferencesByToken(ctx context.Context, token string) (Preferences, error) {
	projectID, contactID, err := s.openContactToken(ctx, token)
	if err != nil {
		return Preferences{}, err
	}
	if contactID == TestSendContact {
		return s.testPreferences(ctx, projectID)
	}
	c, p, err := s.contactByToken(ctx, s.db.Reader(), projectID, contactID)
	return Preferences{Email: c.Email, Subscribed: c.Subscribed, ProjectName: p.Name}, err
}

// SetSubscriptionByToken subscribes or unsubscribes the contact behind a
// link, emitting the contact.* event when the state changes.
func (s *Service) SetSubscriptionByToken(ctx context.Context, token string, subscribed bool) (Preferences, error) {
	var prefs Preferences
	projectID, contactID, err := s.openContactToken(ctx, token)
	if err != nil {
		return prefs, err
	}
	if contactID == TestSendContact {
		return s.testPreferences(ctx, projectID)
	}
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		c, p, err := s.contactByToken(ctx, tx, projectID, contactID)
		if err != nil {
			return err
		}
		prefs = Preferences{Email: c.Email, Subscribed: subscribed, ProjectName: p.Name}
		if c.Subscribed == subscribed {
			return nil
		}
		c.Subscribed, c.UpdatedAt = subscribed, s.now()
		if err := tx.UpdateContact(ctx, c); err != nil {
			return err
		}
		return s.audience.EmitSubscription(ctx, tx, c, event.ReasonUnsubscribeLink, c.UpdatedAt)
	})
	return prefs, err
}
