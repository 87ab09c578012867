package senders

import (
	"context"
	"errors"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// In the sandbox (herald serve --sandbox) nothing is looked up in DNS: a
// domain's check finds every record it asks for, with the value it asks
// for, so a domain is verified as soon as it is added, and the sandbox's
// DKIM check reads the keys Herald holds (PublishedDKIM) where a receiver
// would read DNS.

// sandboxCheck is a check that found every record of d as asked.
func (s *Service) sandboxCheck(d storage.Domain) checkResult {
	records, err := s.domainRecords(d)
	if err != nil {
		return checkResult{}
	}
	res := make(checkResult, len(records))
	for _, r := range records {
		res[r.Purpose] = lookup{outcomeFound, r.Value}
	}
	return res
}

// PublishedDKIM answers a DKIM key lookup as the DNS of a domain that
// published what Herald asks would: the TXT record at
// <selector>._domainkey.<domain> of the sender domain with that selector,
// in whichever project holds it.
func (s *Service) PublishedDKIM(ctx context.Context, name string) (_ []string, err error) {
	defer apierr.Wrap(&err, "senders.PublishedDKIM")
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	selector, domain, ok := strings.Cut(name, "._domainkey.")
	if !ok || selector == "" || domain == "" {
		return nil, errNoRecord
	}
	d, err := storage.DomainKeyBySelector(ctx, s.db.Reader(), domain, selector)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errNoRecord
	}
	if err != nil {
		return nil, err
	}
	v, err := dkimKey(d).RecordValue()
	if err != nil {
		return nil, err
	}
	return []string{v}, nil
}

var errNoRecord = errors.New("no DKIM key published at this name")
