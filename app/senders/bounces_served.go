package senders

import (
	"context"
	"strings"

	"github.com/heraldmail/herald/storage"
)

// The inbound listener serves bounce.<domain> for every sender domain, and
// the inbound host itself. RFC 5321 §4.5.1 requires postmaster at every
// domain a server accepts mail for, and abuse (RFC 2142) is where reports
// about a sender go: both are accepted there, and their mail is logged.
// Any other domain is refused (550): the listener is no relay.

// roleMailbox reports whether a local part is postmaster or abuse.
func RoleMailbox(local string) bool {
	return strings.EqualFold(local, "postmaster") || strings.EqualFold(local, "abuse")
}

// servedDomain reports whether the listener takes mail for domain.
func (s *Service) ServedDomain(ctx context.Context, domain string) (bool, error) {
	domain = strings.TrimSuffix(strings.ToLower(domain), ".")
	if s.inboundHost != "" && domain == strings.TrimSuffix(strings.ToLower(s.inboundHost), ".") {
		return true, nil
	}
	sender, ok := strings.CutPrefix(domain, "bounce.")
	if !ok || sender == "" {
		return false, nil
	}
	return storage.DomainRegistered(ctx, s.db.Reader(), sender)
}
