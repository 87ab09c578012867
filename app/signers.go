package app

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/dkim"
)

// signerCache keeps one parsed DKIM signer per key, since parsing a PEM
// key costs more than the lookup that finds it. Keyed by the key's hash, a
// domain deleted and added again with a new key never signs with the old.
type signerCache struct {
	mu sync.Mutex
	m  map[[32]byte]*dkim.Signer
}

// senderSigner makes CheckSender's check of a from address and returns the
// signer of its domain, with one lookup.
func (a *App) senderSigner(ctx context.Context, projectID, from string) (*dkim.Signer, error) {
	domain, ok := verify.AddressDomain(from)
	if !ok {
		return nil, domainNotVerified(fallbackDomain(from))
	}
	return a.signerFor(ctx, projectID, domain)
}

// signerFor returns the signer of a project's verified sending domain.
func (a *App) signerFor(ctx context.Context, projectID, domain string) (*dkim.Signer, error) {
	key, err := a.SigningKey(ctx, projectID, domain)
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256(append([]byte(key.Selector+"\n"), key.PrivatePEM...))
	a.signers.mu.Lock()
	defer a.signers.mu.Unlock()
	if s, ok := a.signers.m[id]; ok {
		return s, nil
	}
	s, err := key.Signer()
	if err != nil {
		return nil, err
	}
	if a.signers.m == nil || len(a.signers.m) > 1000 {
		a.signers.m = map[[32]byte]*dkim.Signer{}
	}
	a.signers.m[id] = s
	return s, nil
}
