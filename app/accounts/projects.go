package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/readcache"
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
func (s *Service) CreateProject(ctx context.Context, name string) (Project, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return Project{}, apierr.Invalid(apierr.FieldError{Field: "name", Code: "too_small", Message: "Project name must be 1 to 100 characters"})
	}
	now := s.now()
	p := Project{ID: ids.New(), Name: name, Public: ids.NewKey(ids.PublicKeyPrefix), Secret: ids.NewKey(ids.SecretKeyPrefix),
		TrackingEnabled: true, CreatedAt: now, UpdatedAt: now}
	err := s.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertProject(ctx, p) })
	return p, err
}

// ListProjects returns every project (but the hidden one of platform
// mail).
func (s *Service) ListProjects(ctx context.Context) ([]Project, error) {
	ps, err := storage.ListProjects(ctx, s.db.Reader())
	out := ps[:0]
	for _, p := range ps {
		if p.ID != SystemProjectID {
			out = append(out, p)
		}
	}
	return out, err
}

// RegenerateKeys replaces both keys of a project. The old keys stop working
// the moment this returns: the cache entries go with the commit.
func (s *Service) RegenerateKeys(ctx context.Context, projectID string) (Project, error) {
	pub, sec := ids.NewKey(ids.PublicKeyPrefix), ids.NewKey(ids.SecretKeyPrefix)
	var p Project
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		old, err := storage.ProjectByID(ctx, tx, projectID)
		if err != nil {
			return err
		}
		if err := tx.ReplaceProjectKeys(ctx, projectID, pub, sec, s.now()); err != nil {
			return err
		}
		tx.OnCommit(func() { s.keys.ForgetKeys(old.Public, old.Secret) })
		p, err = storage.ProjectByID(ctx, tx, projectID)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return p, apierr.NotFound("NOT_FOUND", "Project not found")
	}
	return p, err
}

// Authenticate finds the project of an API key and checks that the key is
// of the kind the endpoint takes. Both failures are INVALID_API_KEY, so a
// caller learns nothing about which keys exist.
func (s *Service) Authenticate(ctx context.Context, key string, want KeyKind) (Project, error) {
	invalid := &apierr.Error{Kind: apierr.KindUnauthorized, Code: "INVALID_API_KEY", Message: "Invalid API key"}
	if !ids.WellFormedKey(key) {
		return Project{}, invalid
	}
	p, ok, gen := s.keys.Get(key)
	if !ok {
		var err error
		p, err = storage.ProjectByKey(ctx, s.db.Reader(), key)
		if errors.Is(err, storage.ErrNotFound) {
			return Project{}, invalid
		}
		if err != nil {
			return Project{}, err
		}
		s.keys.Put(key, p, gen)
	}
	switch {
	case want == PublicKey && key != p.Public, want == SecretKey && key != p.Secret:
		return Project{}, &apierr.Error{Kind: apierr.KindUnauthorized, Code: "INVALID_API_KEY",
			Message: wrongKindMessage(want)}
	case p.Disabled:
		return Project{}, &apierr.Error{Kind: apierr.KindForbidden, Code: "PROJECT_DISABLED", Message: "This project is disabled"}
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
// the old ones on commit (ForgetKeys), so a replaced key is refused at once.
// A lookup that read the database before that must not put the old key
// back, and another process (the CLI's regenerate-keys or project delete)
// cannot reach the cache: both are readcache's rules.
type keyCache = readcache.Cache[string, Project]

func newKeyCache(now func() time.Time) *keyCache { return readcache.New[string, Project](now) }

// SystemProjectID owns the rows of platform mail (package notify): a
// hidden project that no key authenticates as.
const SystemProjectID = "00000000-0000-7000-8000-000000000000"
