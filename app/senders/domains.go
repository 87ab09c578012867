package senders

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/storage"
)

// Domain is a sender domain as the API shows it: never its private key.
type Domain struct {
	ID            string      `json:"id"`
	Domain        string      `json:"domain"`
	Verified      bool        `json:"verified"`
	Status        string      `json:"status"` // pending | verified
	Records       []DNSRecord `json:"records"`
	ProjectID     string      `json:"projectId"`
	LastCheckedAt *time.Time  `json:"lastCheckedAt"`
	CreatedAt     time.Time   `json:"createdAt"`
	UpdatedAt     time.Time   `json:"updatedAt"`
}

// Domain states.
const (
	DomainPending  = "pending"
	DomainVerified = "verified"
)

// AddDomainInput is the body of POST /domains.
type AddDomainInput struct {
	Domain    *string
	ProjectID *string
	Algorithm *string // rsa (default) | ed25519
}

// AddDomain registers a sender domain for the project and generates its
// DKIM key. The domain is pending until its DKIM record is published.
func (s *Service) AddDomain(ctx context.Context, projectID string, in AddDomainInput) (_ Domain, err error) {
	defer apierr.Wrap(&err, "senders.AddDomain")
	if in.ProjectID != nil && *in.ProjectID != projectID {
		return Domain{}, projectDenied()
	}
	name, alg, err := checkAddDomain(in)
	if err != nil {
		return Domain{}, err
	}
	// Key generation (RSA-2048 takes tens of milliseconds) stays outside
	// the write so that it never holds up other writers; a request bound
	// to conflict is refused before paying for it, and checked again in
	// the write.
	if err := checkDomainFree(ctx, s.db.Reader(), projectID, name); err != nil {
		return Domain{}, err
	}
	now := s.now()
	key, err := dkim.Generate(alg, dkim.NewSelector(now))
	if err != nil {
		return Domain{}, err
	}
	d := storage.Domain{ID: ids.New(), ProjectID: projectID, Name: name, DKIMAlgorithm: string(key.Algorithm),
		DKIMKey: key.PrivatePEM, CheckStatus: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		if err := checkDomainFree(ctx, tx, projectID, name); err != nil {
			return err
		}
		selector, err := freeSelector(ctx, tx, name, key.Selector, d.ID)
		if err != nil {
			return err
		}
		d.DKIMSelector = selector
		if s.sandbox { // verified at once: the sandbox asks no DNS
			d = applyCheck(d, s.sandboxCheck(d), now)
			tx.OnCommit(s.senders.Forget)
		}
		return tx.InsertDomain(ctx, d)
	})
	if err != nil {
		return Domain{}, err
	}
	return s.domainView(d)
}

func checkAddDomain(in AddDomainInput) (string, dkim.Algorithm, error) {
	var v apierr.Validation
	var name string
	if in.Domain == nil {
		v.Add("domain", "invalid_type", "Required", "undefined")
	} else if canon, err := verify.CanonicalDomain(*in.Domain); err != nil {
		v.Add("domain", "invalid_string", "Invalid domain: "+err.Error(), *in.Domain)
	} else {
		name = canon
	}
	alg := dkim.RSA
	if in.Algorithm != nil {
		switch a := dkim.Algorithm(strings.ToLower(strings.TrimSpace(*in.Algorithm))); a {
		case dkim.RSA, dkim.Ed25519:
			alg = a
		default:
			v.Add("algorithm", "invalid_enum_value",
				"Invalid enum value. Expected 'rsa' | 'ed25519', received '"+*in.Algorithm+"'", *in.Algorithm)
		}
	}
	return name, alg, v.Err()
}

// checkDomainFree refuses a domain the project already has, and one that
// another project has verified: proving control of the DNS once is what
// makes a domain a project's sender.
func checkDomainFree(ctx context.Context, q storage.Querier, projectID, name string) error {
	if _, err := storage.DomainByName(ctx, q, projectID, name); err == nil {
		return apierr.Conflict("The domain %s is already added to this project", name)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	taken, err := storage.VerifiedElsewhere(ctx, q, projectID, name)
	if err == nil && taken {
		return apierr.Conflict("The domain %s is verified by another project; a domain can be added only where it is not already verified", name)
	}
	return err
}

// freeSelector keeps two keys from sharing one DNS name: when another
// project has added the same domain in the same month, a suffix taken from
// the row's random id tells the two selectors apart. (DKIM verifiers may
// read only one TXT record at a name.)
func freeSelector(ctx context.Context, q storage.Querier, name, selector, id string) (string, error) {
	taken, err := storage.SelectorTaken(ctx, q, name, selector)
	if err != nil || !taken {
		return selector, err
	}
	return selector + "x" + id[len(id)-6:], nil
}

func projectDenied() *apierr.Error {
	return &apierr.Error{Kind: apierr.KindForbidden, Code: "PROJECT_ACCESS_DENIED", Message: "The API key does not give access to that project"}
}

// ListDomains returns the domains of the caller's own project, newest
// first. Asking for another project's domains is a 404, so that project
// ids cannot be probed.
func (s *Service) ListDomains(ctx context.Context, callerProjectID, projectID string) (_ []Domain, err error) {
	defer apierr.Wrap(&err, "senders.ListDomains")
	if projectID != callerProjectID {
		return nil, apierr.NotFound("NOT_FOUND", "Project not found")
	}
	rows, err := storage.ListDomains(ctx, s.db.Reader(), projectID)
	if err != nil {
		return nil, err
	}
	out := make([]Domain, 0, len(rows))
	for _, d := range rows {
		view, err := s.domainView(d)
		if err != nil {
			return nil, err
		}
		out = append(out, view)
	}
	return out, nil
}

func domainErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("DOMAIN_NOT_FOUND", "Domain not found")
	}
	return err
}

// DeleteDomain removes a sender domain that nothing uses any more.
func (s *Service) DeleteDomain(ctx context.Context, projectID, id string) (err error) {
	defer apierr.Wrap(&err, "senders.DeleteDomain")
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		d, err := storage.DomainByID(ctx, tx, projectID, id)
		if err != nil {
			return domainErr(err)
		}
		if use, err := domainInUse(ctx, tx, projectID, d.Name); err != nil || use != "" {
			if err == nil {
				err = apierr.Conflict("The domain %s cannot be deleted: %s", d.Name, use)
			}
			return err
		}
		tx.OnCommit(s.senders.Forget)
		_, err = tx.DeleteDomain(ctx, projectID, id)
		return err
	})
}

// domainInUse says, in words, what still sends from the domain, or "" when
// nothing does. Features that send from a domain (campaigns, workflow
// steps) add their check here.
func domainInUse(ctx context.Context, q storage.Querier, projectID, name string) (string, error) {
	if c, err := storage.CountActiveCampaignsFromDomain(ctx, q, projectID, name); err != nil || c > 0 {
		return strconv.Itoa(c) + " scheduled or sending campaign(s) send from it", err
	}
	n, err := storage.CountTemplatesFromDomain(ctx, q, projectID, name)
	if err != nil || n == 0 {
		return "", err
	}
	if n == 1 {
		return "1 template sends from it", nil
	}
	return strconv.Itoa(n) + " templates send from it", nil
}
