package app

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/storage"
)

// ReasonUnsubscribeLink is the reason of changes made on the pages behind
// unsubscribeUrl, subscribeUrl and manageUrl.
const ReasonUnsubscribeLink = "unsubscribe_link"

// Preferences is what the subscription pages show.
type Preferences struct {
	Email       string
	Subscribed  bool
	ProjectName string
}

// contactByToken opens a contact link token.
func (a *App) contactByToken(ctx context.Context, q storage.Querier, token string) (storage.Contact, storage.Project, error) {
	payload, err := a.openToken(ctx, tokenContact, token)
	projectID, rest, ok := cutID(payload)
	contactID, rest, ok2 := cutID(rest)
	if err != nil || !ok || !ok2 || len(rest) != 0 {
		return storage.Contact{}, storage.Project{}, NotFound("NOT_FOUND", "This link is not valid")
	}
	c, err := storage.ContactByID(ctx, q, projectID, contactID)
	if errors.Is(err, storage.ErrNotFound) {
		return c, storage.Project{}, NotFound("CONTACT_NOT_FOUND", "This contact no longer exists")
	}
	if err != nil {
		return c, storage.Project{}, err
	}
	p, err := storage.ProjectByID(ctx, q, projectID)
	return c, p, err
}

// PreferencesByToken reads the contact behind a link.
func (a *App) PreferencesByToken(ctx context.Context, token string) (Preferences, error) {
	c, p, err := a.contactByToken(ctx, a.db.Reader(), token)
	return Preferences{Email: c.Email, Subscribed: c.Subscribed, ProjectName: p.Name}, err
}

// SetSubscriptionByToken subscribes or unsubscribes the contact behind a
// link, emitting the contact.* event when the state changes.
func (a *App) SetSubscriptionByToken(ctx context.Context, token string, subscribed bool) (Preferences, error) {
	var prefs Preferences
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		c, p, err := a.contactByToken(ctx, tx, token)
		if err != nil {
			return err
		}
		prefs = Preferences{Email: c.Email, Subscribed: subscribed, ProjectName: p.Name}
		if c.Subscribed == subscribed {
			return nil
		}
		c.Subscribed, c.UpdatedAt = subscribed, a.now()
		if err := tx.UpdateContact(ctx, c); err != nil {
			return err
		}
		return a.emitSubscription(ctx, tx, c, ReasonUnsubscribeLink, c.UpdatedAt)
	})
	return prefs, err
}
