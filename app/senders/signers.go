package senders

import (
	"context"
	"errors"
	"sync"

	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/storage"
)

// signerCache keeps one parsed DKIM signer per sender domain, since
// parsing a PEM key costs more than the lookup that finds the domain. It
// is keyed by the domain's id: a domain's key never changes, and a domain
// deleted and added again gets a new id and a new key.
type signerCache struct {
	mu sync.Mutex
	m  map[string]*dkim.Signer
}

// senderSigner makes CheckSender's check of a from address and returns the
// signer of its domain.
func (s *Service) SenderSigner(ctx context.Context, projectID, from string) (*dkim.Signer, error) {
	domain, ok := verify.AddressDomain(from)
	if !ok {
		return nil, domainNotVerified(fallbackDomain(from))
	}
	return s.SignerFor(ctx, projectID, domain)
}

// signerFor returns the signer of a project's verified sending domain (in
// any case, IDN or A-labels). Each call checks that the domain is still
// verified, through the sender cache; the parsed key is cached too.
func (a *Service) SignerFor(ctx context.Context, projectID, domain string) (*dkim.Signer, error) {
	name, err := verify.CanonicalDomain(domain)
	if err != nil {
		return nil, domainNotVerified(domain)
	}
	id, err := a.verifiedDomainID(ctx, projectID, name)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, domainNotVerified(name)
	}
	if err != nil {
		return nil, err
	}
	a.signers.mu.Lock()
	s, ok := a.signers.m[id]
	a.signers.mu.Unlock()
	if ok {
		return s, nil
	}
	key, err := a.SigningKey(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	if s, err = key.Signer(); err != nil {
		return nil, err
	}
	a.signers.mu.Lock()
	defer a.signers.mu.Unlock()
	if a.signers.m == nil || len(a.signers.m) > 1000 {
		a.signers.m = map[string]*dkim.Signer{}
	}
	a.signers.m[id] = s
	return s, nil
}

// verifiedDomainID is storage.VerifiedDomainID through the sender cache.
func (s *Service) verifiedDomainID(ctx context.Context, projectID, name string) (string, error) {
	key := senderKey{projectID, name}
	id, ok, gen := s.senders.Get(key)
	if ok {
		return id, nil
	}
	id, err := storage.VerifiedDomainID(ctx, s.db.Reader(), projectID, name)
	if err == nil {
		s.senders.Put(key, id, gen)
	}
	return id, err
}

// senderKey names a sender domain of a project.
type senderKey struct{ projectID, domain string }
