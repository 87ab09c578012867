package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Project is a tenant with its key pair.
type Project = storage.Project

// KeyKind is the kind of API key an endpoint accepts.
type KeyKind int

// The two kinds of key.
const (
	PublicKey KeyKind = iota + 1
	SecretKey
)

// CreateProject makes a project with a fresh key pair.
func (a *App) CreateProject(ctx context.Context, name string) (Project, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return Project{}, Invalid(FieldError{Field: "name", Code: "too_small", Message: "Project name must be 1 to 100 characters"})
	}
	now := a.now()
	p := Project{ID: newID(), Name: name, Public: newKey(PublicKeyPrefix), Secret: newKey(SecretKeyPrefix),
		TrackingEnabled: true, CreatedAt: now, UpdatedAt: now}
	err := a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertProject(ctx, p) })
	return p, err
}

// ListProjects returns every project (but the hidden one of platform
// mail).
func (a *App) ListProjects(ctx context.Context) ([]Project, error) {
	ps, err := storage.ListProjects(ctx, a.db.Reader())
	out := ps[:0]
	for _, p := range ps {
		if p.ID != systemProjectID {
			out = append(out, p)
		}
	}
	return out, err
}

// RegenerateKeys replaces both keys of a project. The old keys stop working
// the moment this returns: the cache entries go with the commit.
func (a *App) RegenerateKeys(ctx context.Context, projectID string) (Project, error) {
	pub, sec := newKey(PublicKeyPrefix), newKey(SecretKeyPrefix)
	var p Project
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		old, err := storage.ProjectByID(ctx, tx, projectID)
		if err != nil {
			return err
		}
		if err := tx.ReplaceProjectKeys(ctx, projectID, pub, sec, a.now()); err != nil {
			return err
		}
		tx.OnCommit(func() { a.keys.forgetKeys(old.Public, old.Secret) })
		p, err = storage.ProjectByID(ctx, tx, projectID)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return p, NotFound("NOT_FOUND", "Project not found")
	}
	return p, err
}

// Authenticate finds the project of an API key and checks that the key is
// of the kind the endpoint takes. Both failures are INVALID_API_KEY, so a
// caller learns nothing about which keys exist.
func (a *App) Authenticate(ctx context.Context, key string, want KeyKind) (Project, error) {
	invalid := &Error{Kind: KindUnauthorized, Code: "INVALID_API_KEY", Message: "Invalid API key"}
	if !WellFormedKey(key) {
		return Project{}, invalid
	}
	p, ok, gen := a.keys.get(key)
	if !ok {
		var err error
		p, err = storage.ProjectByKey(ctx, a.db.Reader(), key)
		if errors.Is(err, storage.ErrNotFound) {
			return Project{}, invalid
		}
		if err != nil {
			return Project{}, err
		}
		a.keys.put(key, p, gen)
	}
	switch {
	case want == PublicKey && key != p.Public, want == SecretKey && key != p.Secret:
		return Project{}, &Error{Kind: KindUnauthorized, Code: "INVALID_API_KEY",
			Message: wrongKindMessage(want)}
	case p.Disabled:
		return Project{}, &Error{Kind: KindForbidden, Code: "PROJECT_DISABLED", Message: "This project is disabled"}
	}
	return p, nil
}

func wrongKindMessage(want KeyKind) string {
	if want == PublicKey {
		return "This endpoint takes the project's public key (pk_), not the secret key"
	}
	return "This endpoint takes the project's secret key (sk_)"
}

// keyCache maps keys to their project so that authentication costs no query
// on the hot path. Only keys that exist are cached, and regeneration removes
// the old ones on commit (forgetKeys), so a replaced key is refused at once.
// A lookup that read the database before that must not put the old key
// back, and another process (the CLI's regenerate-keys or project delete)
// cannot reach the cache: both are readCache's rules (read_cache.go).
type keyCache = readCache[string, Project]

// keyCacheTTL is how long a cached key is trusted without reading the
// database again: a key replaced by another process stops within it.
const keyCacheTTL = 2 * time.Second

func newKeyCache() *keyCache { return newReadCache[string, Project]() }
