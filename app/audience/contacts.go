package audience

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// Contact is one address of a project's audience.
type Contact = storage.Contact

// ContactMeta tells a POST /contacts caller what the upsert did.
type ContactMeta struct {
	IsNew    bool `json:"isNew"`
	IsUpdate bool `json:"isUpdate"`
}

// UpsertedContact is the response of POST /contacts.
type UpsertedContact struct {
	Contact
	Meta ContactMeta `json:"_meta"`
}

// UpsertContactInput is the body of POST /contacts.
type UpsertContactInput struct {
	Email      *string
	Subscribed *bool
	Data       map[string]any
}

// UpsertContact creates the contact or updates the one with that email.
func (s *Service) UpsertContact(ctx context.Context, projectID string, in UpsertContactInput) (UpsertedContact, error) {
	if in.Email == nil || strings.TrimSpace(*in.Email) == "" {
		return UpsertedContact{}, apierr.PlainBadRequest("Email is required")
	}
	var v apierr.Validation
	email := verify.CheckEmail(&v, "email", *in.Email)
	CheckData(&v, "data", in.Data)
	if err := v.Err(); err != nil {
		return UpsertedContact{}, err
	}
	var res ContactChange
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		res, err = s.UpsertInTx(ctx, tx, projectID, ContactUpsert{
			Email: email, Subscribed: in.Subscribed, NewSubscribed: true,
			Data: ParseData(in.Data), Reason: event.ReasonAPI,
		})
		return err
	})
	if err != nil {
		return UpsertedContact{}, err
	}
	return UpsertedContact{Contact: res.Contact, Meta: ContactMeta{IsNew: res.Created, IsUpdate: !res.Created}}, nil
}

// contactUpsert is what every path that creates-or-updates a contact by
// email (POST /contacts, track, send, import) asks for.
type ContactUpsert struct {
	Email         string // normalised
	ID            string // id for a new contact; "" makes one
	Subscribed    *bool  // nil keeps an existing contact's state
	NewSubscribed bool   // state of a new contact when subscribed is nil
	Data          DataInput
	Reason        string // for a subscription change event
	Unseen        bool   // a read just before the write found no such contact
}

// contactChange is what an upsert did.
type ContactChange struct {
	Contact storage.Contact
	Created bool
	Updated bool // an existing contact was changed
}

// UpsertInTx runs inside the caller's write so that the contact, the
// caller's own rows and any subscription event commit together.
func (s *Service) UpsertInTx(ctx context.Context, tx *storage.Tx, projectID string, in ContactUpsert) (ContactChange, error) {
	now := s.now()
	if in.Unseen {
		// Most likely still new: insert without looking first, and look
		// only if a contact with this email came in since.
		c := s.newContact(projectID, in, now)
		if created, err := tx.InsertContactIfNew(ctx, c); created || err != nil {
			return ContactChange{Contact: c, Created: created}, err
		}
	}
	c, err := storage.ContactByEmail(ctx, tx, projectID, in.Email)
	if errors.Is(err, storage.ErrNotFound) {
		c = s.newContact(projectID, in, now)
		return ContactChange{Contact: c, Created: true}, tx.InsertContact(ctx, c)
	}
	if err != nil {
		return ContactChange{}, err
	}
	flipped := in.Subscribed != nil && *in.Subscribed != c.Subscribed
	if !flipped && in.Data.unchangedFor(c.Data) {
		// The common repeat (the same data tracked again) costs the
		// single writer no decoding.
		return ContactChange{Contact: c}, nil
	}
	data, err := jsondata.Decode(c.Data)
	if err != nil {
		return ContactChange{}, err
	}
	changed := in.Data.Apply(data)
	if flipped {
		c.Subscribed = *in.Subscribed
	}
	if changed || flipped {
		c.Data, c.UpdatedAt = jsondata.Encode(data), now
		if err := tx.UpdateContact(ctx, c); err != nil {
			return ContactChange{}, err
		}
	}
	if flipped {
		if err := s.EmitSubscription(ctx, tx, c, in.Reason, now); err != nil {
			return ContactChange{}, err
		}
	}
	return ContactChange{Contact: c, Updated: changed || flipped}, nil
}

// newContact is the contact an upsert creates when none has its email.
func (s *Service) newContact(projectID string, in ContactUpsert, now time.Time) storage.Contact {
	data := map[string]any{}
	in.Data.Apply(data)
	sub := in.NewSubscribed
	if in.Subscribed != nil {
		sub = *in.Subscribed
	}
	if in.ID == "" {
		in.ID = ids.New()
	}
	return storage.Contact{ID: in.ID, ProjectID: projectID, Email: in.Email, Subscribed: sub,
		Data: jsondata.Encode(data), CreatedAt: now, UpdatedAt: now}
}

// emitSubscription records contact.subscribed or contact.unsubscribed for a
// contact whose state has just changed to c.Subscribed.
func (s *Service) EmitSubscription(ctx context.Context, tx *storage.Tx, c storage.Contact, reason string, now time.Time) error {
	name := event.EventUnsubscribed
	if c.Subscribed {
		name = event.EventSubscribed
	}
	data, _ := json.Marshal(map[string]string{"reason": reason})
	return s.events.InsertEvent(ctx, tx, storage.Event{ID: ids.New(), ProjectID: c.ProjectID, ContactID: c.ID,
		Name: name, Data: data, CreatedAt: now})
}

// GetContact returns one contact.
func (s *Service) GetContact(ctx context.Context, projectID, id string) (Contact, error) {
	c, err := storage.ContactByID(ctx, s.db.Reader(), projectID, id)
	return c, contactErr(err)
}

func contactErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("CONTACT_NOT_FOUND", "Contact not found")
	}
	return err
}

// UpdateContactInput is the body of PATCH /contacts/{id}.
type UpdateContactInput struct {
	Email      *string
	Subscribed *bool
	Data       map[string]any
}

// UpdateContact changes a contact's email, subscription or data.
func (s *Service) UpdateContact(ctx context.Context, projectID, id string, in UpdateContactInput) (Contact, error) {
	var v apierr.Validation
	var email string
	if in.Email != nil {
		email = verify.CheckEmail(&v, "email", *in.Email)
	}
	CheckData(&v, "data", in.Data)
	if err := v.Err(); err != nil {
		return Contact{}, err
	}
	var c Contact
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		c, err = s.updateContact(ctx, tx, projectID, id, email, in)
		return err
	})
	return c, err
}

func (s *Service) updateContact(ctx context.Context, tx *storage.Tx, projectID, id, email string, in UpdateContactInput) (Contact, error) {
	c, err := storage.ContactByID(ctx, tx, projectID, id)
	if err != nil {
		return c, contactErr(err)
	}
	if email != "" && email != c.Email {
		if _, err := storage.ContactByEmail(ctx, tx, projectID, email); err == nil {
			return c, apierr.Conflict("Another contact in this project already has the email %s", email)
		}
		c.Email = email
	}
	data, err := jsondata.Decode(c.Data)
	if err != nil {
		return c, err
	}
	ParseData(in.Data).Apply(data)
	flipped := in.Subscribed != nil && *in.Subscribed != c.Subscribed
	if flipped {
		c.Subscribed = *in.Subscribed
	}
	now := s.now()
	c.Data, c.UpdatedAt = jsondata.Encode(data), now
	if err := tx.UpdateContact(ctx, c); err != nil {
		return c, err
	}
	if flipped {
		return c, s.EmitSubscription(ctx, tx, c, event.ReasonAPI, now)
	}
	return c, nil
}

// DeleteContact removes a contact for good, with its events.
func (s *Service) DeleteContact(ctx context.Context, projectID, id string) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		s.contactsRemoved(tx)
		ok, err := tx.DeleteContact(ctx, projectID, id)
		if err == nil && !ok {
			return contactErr(storage.ErrNotFound)
		}
		return err
	})
}
