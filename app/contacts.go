package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

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

// Reasons carried by contact.subscribed / contact.unsubscribed events.
const (
	ReasonAPI  = "api"
	ReasonBulk = "bulk"
)

// Event names the service emits for subscription changes.
const (
	EventSubscribed   = "contact.subscribed"
	EventUnsubscribed = "contact.unsubscribed"
)

// NormalizeEmail trims and lower-cases an address, the form in which
// contacts are stored and compared.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// checkEmail normalises an address and validates its syntax, reporting a
// failure at field.
func checkEmail(v *Validation, field, raw string) string {
	email := NormalizeEmail(raw)
	if !verify.ValidSyntax(email) {
		v.Add(field, "invalid_string", "Invalid email", raw)
	}
	return email
}

// UpsertContactInput is the body of POST /contacts.
type UpsertContactInput struct {
	Email      *string
	Subscribed *bool
	Data       map[string]any
}

// UpsertContact creates the contact or updates the one with that email.
func (a *App) UpsertContact(ctx context.Context, projectID string, in UpsertContactInput) (UpsertedContact, error) {
	if in.Email == nil || strings.TrimSpace(*in.Email) == "" {
		return UpsertedContact{}, PlainBadRequest("Email is required")
	}
	var v Validation
	email := checkEmail(&v, "email", *in.Email)
	checkData(&v, "data", in.Data)
	if err := v.Err(); err != nil {
		return UpsertedContact{}, err
	}
	var res contactChange
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		res, err = a.upsertContact(ctx, tx, projectID, contactUpsert{
			email: email, subscribed: in.Subscribed, newSubscribed: true,
			data: ParseData(in.Data), reason: ReasonAPI,
		})
		return err
	})
	if err != nil {
		return UpsertedContact{}, err
	}
	return UpsertedContact{Contact: res.contact, Meta: ContactMeta{IsNew: res.created, IsUpdate: !res.created}}, nil
}

// contactUpsert is what every path that creates-or-updates a contact by
// email (POST /contacts, track, send, import) asks for.
type contactUpsert struct {
	email         string // normalised
	id            string // id for a new contact; "" makes one
	subscribed    *bool  // nil keeps an existing contact's state
	newSubscribed bool   // state of a new contact when subscribed is nil
	data          DataInput
	reason        string // for a subscription change event
	unseen        bool   // a read just before the write found no such contact
}

// contactChange is what an upsert did.
type contactChange struct {
	contact storage.Contact
	created bool
	updated bool // an existing contact was changed
}

// upsertContact runs inside the caller's write so that the contact, the
// caller's own rows and any subscription event commit together.
func (a *App) upsertContact(ctx context.Context, tx *storage.Tx, projectID string, in contactUpsert) (contactChange, error) {
	now := a.now()
	if in.unseen {
		// Most likely still new: insert without looking first, and look
		// only if a contact with this email came in since.
		c := a.newContact(projectID, in, now)
		if created, err := tx.InsertContactIfNew(ctx, c); created || err != nil {
			return contactChange{contact: c, created: created}, err
		}
	}
	c, err := storage.ContactByEmail(ctx, tx, projectID, in.email)
	if errors.Is(err, storage.ErrNotFound) {
		c = a.newContact(projectID, in, now)
		return contactChange{contact: c, created: true}, tx.InsertContact(ctx, c)
	}
	if err != nil {
		return contactChange{}, err
	}
	flipped := in.subscribed != nil && *in.subscribed != c.Subscribed
	if !flipped && in.data.unchangedFor(c.Data) {
		// The common repeat (the same data tracked again) costs the
		// single writer no decoding.
		return contactChange{contact: c}, nil
	}
	data, err := jsondata.Decode(c.Data)
	if err != nil {
		return contactChange{}, err
	}
	changed := in.data.Apply(data)
	if flipped {
		c.Subscribed = *in.subscribed
	}
	if changed || flipped {
		c.Data, c.UpdatedAt = jsondata.Encode(data), now
		if err := tx.UpdateContact(ctx, c); err != nil {
			return contactChange{}, err
		}
	}
	if flipped {
		if err := a.emitSubscription(ctx, tx, c, in.reason, now); err != nil {
			return contactChange{}, err
		}
	}
	return contactChange{contact: c, updated: changed || flipped}, nil
}

// newContact is the contact an upsert creates when none has its email.
func (a *App) newContact(projectID string, in contactUpsert, now time.Time) storage.Contact {
	data := map[string]any{}
	in.data.Apply(data)
	sub := in.newSubscribed
	if in.subscribed != nil {
		sub = *in.subscribed
	}
	if in.id == "" {
		in.id = newID()
	}
	return storage.Contact{ID: in.id, ProjectID: projectID, Email: in.email, Subscribed: sub,
		Data: jsondata.Encode(data), CreatedAt: now, UpdatedAt: now}
}

// emitSubscription records contact.subscribed or contact.unsubscribed for a
// contact whose state has just changed to c.Subscribed.
func (a *App) emitSubscription(ctx context.Context, tx *storage.Tx, c storage.Contact, reason string, now time.Time) error {
	name := EventUnsubscribed
	if c.Subscribed {
		name = EventSubscribed
	}
	data, _ := json.Marshal(map[string]string{"reason": reason})
	return a.insertEvent(ctx, tx, storage.Event{ID: newID(), ProjectID: c.ProjectID, ContactID: c.ID,
		Name: name, Data: data, CreatedAt: now})
}

// GetContact returns one contact.
func (a *App) GetContact(ctx context.Context, projectID, id string) (Contact, error) {
	c, err := storage.ContactByID(ctx, a.db.Reader(), projectID, id)
	return c, contactErr(err)
}

func contactErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return NotFound("CONTACT_NOT_FOUND", "Contact not found")
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
func (a *App) UpdateContact(ctx context.Context, projectID, id string, in UpdateContactInput) (Contact, error) {
	var v Validation
	var email string
	if in.Email != nil {
		email = checkEmail(&v, "email", *in.Email)
	}
	checkData(&v, "data", in.Data)
	if err := v.Err(); err != nil {
		return Contact{}, err
	}
	var c Contact
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		c, err = a.updateContact(ctx, tx, projectID, id, email, in)
		return err
	})
	return c, err
}

func (a *App) updateContact(ctx context.Context, tx *storage.Tx, projectID, id, email string, in UpdateContactInput) (Contact, error) {
	c, err := storage.ContactByID(ctx, tx, projectID, id)
	if err != nil {
		return c, contactErr(err)
	}
	if email != "" && email != c.Email {
		if _, err := storage.ContactByEmail(ctx, tx, projectID, email); err == nil {
			return c, Conflict("Another contact in this project already has the email %s", email)
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
	now := a.now()
	c.Data, c.UpdatedAt = jsondata.Encode(data), now
	if err := tx.UpdateContact(ctx, c); err != nil {
		return c, err
	}
	if flipped {
		return c, a.emitSubscription(ctx, tx, c, ReasonAPI, now)
	}
	return c, nil
}

// DeleteContact removes a contact for good, with its events.
func (a *App) DeleteContact(ctx context.Context, projectID, id string) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		a.engaged.removed(tx)
		ok, err := tx.DeleteContact(ctx, projectID, id)
		if err == nil && !ok {
			return contactErr(storage.ErrNotFound)
		}
		return err
	})
}
