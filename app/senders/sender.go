package senders

import (
	"context"
	"errors"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/storage"
)

// CheckSender is the check every send path makes before accepting a
// message: the from address's domain must be a verified sender domain of
// the project. The refusal is the spec's 403, whose code is
// INTERNAL_SERVER_ERROR for compatibility; details.reason says what it is.
func (s *Service) CheckSender(ctx context.Context, projectID, from string) error {
	domain, ok := verify.AddressDomain(from)
	if !ok {
		return domainNotVerified(fallbackDomain(from))
	}
	_, err := s.verifiedDomain(ctx, projectID, domain)
	return err
}

// SigningKey returns the DKIM key of a verified sender domain of the
// project (the domain in any case, IDN or A-labels). An unverified or
// unknown domain gives the same 403 as CheckSender.
func (s *Service) SigningKey(ctx context.Context, projectID, domain string) (dkim.Key, error) {
	name, err := verify.CanonicalDomain(domain)
	if err != nil {
		return dkim.Key{}, domainNotVerified(domain)
	}
	d, err := s.verifiedDomain(ctx, projectID, name)
	if err != nil {
		return dkim.Key{}, err
	}
	return dkimKey(d), nil
}

func (s *Service) verifiedDomain(ctx context.Context, projectID, name string) (storage.Domain, error) {
	d, err := storage.VerifiedDomain(ctx, s.db.Reader(), projectID, name)
	if errors.Is(err, storage.ErrNotFound) {
		return d, domainNotVerified(name)
	}
	return d, err
}

func domainNotVerified(domain string) *apierr.Error {
	return &apierr.Error{Kind: apierr.KindForbidden, Code: "INTERNAL_SERVER_ERROR",
		Message:    "The sender domain " + domain + " is not verified for this project",
		Details:    map[string]any{"reason": "DOMAIN_NOT_VERIFIED", "domain": domain},
		Suggestion: "Add the domain with POST /domains, publish the DKIM TXT record it returns, then check it with GET /domains/{id}/verify"}
}

// fallbackDomain is the text after the last @ of an address that did not
// parse, for the error message only.
func fallbackDomain(from string) string {
	from = strings.TrimSpace(from)
	if i := strings.LastIndexByte(from, '@'); i >= 0 {
		return strings.ToLower(from[i+1:])
	}
	return from
}
