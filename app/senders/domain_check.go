package senders

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/storage"
)

// DNS is what the sender-domain checks ask of a resolver; *resolver.Client
// implements it. Its errors must be classified as resolver's are: a
// definite absence satisfies resolver.IsNotFound, and anything else counts
// as a temporary failure that proves nothing.
type DNS interface {
	TXT(ctx context.Context, name string) ([]string, error)
	MX(ctx context.Context, name string) ([]resolver.MX, error)
}

// Periodic check settings.
const (
	DomainCheckInterval = 5 * time.Minute
	// unverifyAfter is how many definite DKIM failures in a row take a
	// verified domain back to pending: one could be a zone being edited.
	unverifyAfter          = 2
	domainCheckPage        = 100
	domainCheckConcurrency = 8
)

// outcome is what one lookup proved.
type outcome int

const (
	outcomeUnknown outcome = iota // SERVFAIL, timeout: proves nothing
	outcomeFound
	outcomeMissing // NXDOMAIN, or no record of the kind
	outcomeWrong   // a record of the kind, with another value
)

// lookup is one record's outcome and the value seen ("" when none).
type lookup struct {
	outcome outcome
	found   string
}

// checkResult maps record purposes to what their lookups proved.
type checkResult map[string]lookup

// VerifyDomain checks a domain's records now and returns the updated domain.
func (s *Service) VerifyDomain(ctx context.Context, projectID, id string) (_ Domain, err error) {
	defer apierr.Wrap(&err, "senders.VerifyDomain")
	d, err := storage.DomainByID(ctx, s.db.Reader(), projectID, id)
	if err != nil {
		return Domain{}, domainErr(err)
	}
	d, err = s.saveCheck(ctx, d, s.checkDNS(ctx, d))
	if err != nil {
		return Domain{}, domainErr(err)
	}
	return s.domainView(d)
}

// runDomainChecks is the periodic job: every domain of every project,
// verified ones too, a page at a time.
func (s *Service) RunDomainChecks(ctx context.Context, job *queue.RunningJob) (_ any, err error) {
	after := ""
	for {
		page, err := storage.DomainsAfter(ctx, s.db.Reader(), after, domainCheckPage)
		if err != nil || len(page) == 0 {
			return nil, err
		}
		var g errgroup.Group
		g.SetLimit(domainCheckConcurrency)
		for _, d := range page {
			g.Go(func() error {
				_, err := s.saveCheck(ctx, d, s.checkDNS(ctx, d))
				if errors.Is(err, storage.ErrNotFound) { // deleted meanwhile
					return nil
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		if err := job.Progress(ctx, 0, nil); err != nil { // renews the lease
			return nil, err
		}
		after = page[len(page)-1].ID
	}
}

// saveCheck applies a check to the domain as it is now (the check ran
// outside the write, and another may have finished meanwhile).
func (s *Service) saveCheck(ctx context.Context, checked storage.Domain, res checkResult) (storage.Domain, error) {
	var d storage.Domain
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := storage.DomainByID(ctx, tx, checked.ProjectID, checked.ID)
		if err != nil {
			return err
		}
		d = applyCheck(cur, res, s.now())
		tx.OnCommit(s.senders.Forget) // it may no longer be verified
		return tx.UpdateDomainCheck(ctx, d)
	})
	if err == nil && d.Verified != checked.Verified {
		s.log.Info("sender domain changed state", "domain", d.Name, "project_id", d.ProjectID, "verified", d.Verified)
	}
	return d, err
}

// applyCheck is the state machine: DKIM found verifies; a definite DKIM
// failure counts, and un-verifies at the second in a row; an unknown
// outcome changes nothing. Each record's status follows its last definite
// outcome.
func applyCheck(d storage.Domain, res checkResult, now time.Time) storage.Domain {
	status := make(map[string]string, len(res))
	for k, v := range d.CheckStatus {
		status[k] = v
	}
	changed := false
	for purpose, l := range res {
		s := RecordMissing
		switch l.outcome {
		case outcomeUnknown:
			continue
		case outcomeFound:
			s = RecordVerified
		case outcomeWrong:
			s = RecordWrongValue
		}
		changed = changed || status[purpose] != s
		status[purpose] = s
		setFound(status, purpose, l.found)
	}
	switch res[PurposeDKIM].outcome {
	case outcomeFound:
		changed = changed || !d.Verified
		d.Verified, d.Failures = true, 0
	case outcomeMissing, outcomeWrong:
		d.Failures++
		if d.Verified && d.Failures >= unverifyAfter {
			d.Verified, changed = false, true
		}
	}
	d.CheckStatus, d.LastCheckedAt = status, now
	if changed {
		d.UpdatedAt = now
	}
	return d
}

// checkDNS looks up every record of the domain at once; the sandbox
// looks up nothing.
func (s *Service) checkDNS(ctx context.Context, d storage.Domain) checkResult {
	if s.sandbox {
		return s.sandboxCheck(d)
	}
	key := dkimKey(d)
	dkimRecord := func(v string) bool { return hasTagPrefix(v, "v=dkim1", "; ") || strings.Contains(v, "p=") }
	checks := map[string]func() lookup{
		PurposeDKIM: func() lookup {
			return s.txtOutcome(ctx, key.RecordName(d.Name), dkimRecord, func(v string) bool { return dkim.RecordMatches(v, key) })
		},
		PurposeSPF:   func() lookup { return s.txtOutcome(ctx, d.Name, isSPF, isSPF) },
		PurposeDMARC: func() lookup { return s.txtOutcome(ctx, "_dmarc."+d.Name, isDMARC, isDMARC) },
	}
	if s.inboundHost != "" {
		bounce := ReturnPathDomain(d.Name)
		checks[PurposeReturnPath] = func() lookup { return s.mxOutcome(ctx, bounce, s.inboundHost) }
		checks[PurposeReturnPathSPF] = func() lookup { return s.txtOutcome(ctx, bounce, isSPF, isSPF) }
	}
	res := make(checkResult, len(checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for purpose, check := range checks {
		wg.Go(func() {
			o := check()
			mu.Lock()
			defer mu.Unlock()
			res[purpose] = o
		})
	}
	wg.Wait()
	return res
}

// txtOutcome is found when one of name's TXT records matches, wrong when
// a record of the kind is there with another value (found is that value),
// and missing when there is none of the kind.
func (s *Service) txtOutcome(ctx context.Context, name string, kind, match func(string) bool) lookup {
	if s.dns == nil {
		return lookup{}
	}
	values, err := s.dns.TXT(ctx, name)
	if err != nil {
		return lookupFailure(err)
	}
	wrong := ""
	for _, v := range values {
		if match(v) {
			return lookup{outcomeFound, v}
		}
		if kind(v) && wrong == "" {
			wrong = v
		}
	}
	if wrong != "" {
		return lookup{outcomeWrong, wrong}
	}
	return lookup{outcome: outcomeMissing}
}

// mxOutcome is found when name's mail exchangers include host, wrong when
// it has others (found lists them, "10 mx.example.com").
func (s *Service) mxOutcome(ctx context.Context, name, host string) lookup {
	if s.dns == nil {
		return lookup{}
	}
	mxs, err := s.dns.MX(ctx, name)
	if err != nil {
		return lookupFailure(err)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	seen := make([]string, 0, len(mxs))
	for _, mx := range mxs {
		if mx.Host == host {
			return lookup{outcomeFound, strconv.Itoa(int(mx.Pref)) + " " + mx.Host}
		}
		seen = append(seen, strconv.Itoa(int(mx.Pref))+" "+mx.Host)
	}
	if len(seen) == 0 {
		return lookup{outcome: outcomeMissing}
	}
	return lookup{outcomeWrong, strings.Join(seen, ", ")}
}

// lookupFailure trusts only a definite negative answer.
func lookupFailure(err error) lookup {
	if resolver.IsNotFound(err) {
		return lookup{outcome: outcomeMissing}
	}
	return lookup{}
}

func isSPF(v string) bool   { return hasTagPrefix(v, "v=spf1", " ") }
func isDMARC(v string) bool { return hasTagPrefix(v, "v=dmarc1", "; ") }

// hasTagPrefix reports whether v starts with prefix, case-insensitively,
// followed by the end or one of the separators.
func hasTagPrefix(v, prefix, separators string) bool {
	v = strings.TrimSpace(v)
	if len(v) < len(prefix) || !strings.EqualFold(v[:len(prefix)], prefix) {
		return false
	}
	return len(v) == len(prefix) || strings.ContainsRune(separators, rune(v[len(prefix)]))
}

// JobCheckDomains checks every sender domain's DNS, periodically. A kind's name is stored in
// its jobs' rows: never rename one.
const JobCheckDomains = "domains.check"
