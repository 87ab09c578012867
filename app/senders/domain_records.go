package senders

import (
	"github.com/heraldmail/herald/dkim"
	"github.com/heraldmail/herald/storage"
)

// DNSRecord is one record a domain owner is asked to publish.
type DNSRecord struct {
	Type     string `json:"type"` // TXT | MX
	Name     string `json:"name"` // fully qualified, no trailing dot
	Value    string `json:"value"`
	Purpose  string `json:"purpose"`
	Required bool   `json:"required"` // only required records decide verification
	Status   string `json:"status"`   // verified | missing | wrong_value
	// Found is the value the last definite check saw: the matching record,
	// or the record of the kind with another value; null when none.
	Found *string `json:"found"`
	// ValueChunks is the DKIM value cut into strings of at most 255
	// characters, for DNS providers that take a TXT record's strings one
	// by one (RFC 1035 §3.3.14 bounds each at 255).
	ValueChunks []string `json:"valueChunks,omitempty"`
}

// Record purposes, the keys of a domain's stored check status.
const (
	PurposeDKIM          = "dkim"
	PurposeSPF           = "spf"
	PurposeDMARC         = "dmarc"
	PurposeReturnPath    = "return-path"     // MX of the bounce domain
	PurposeReturnPathSPF = "return-path-spf" // SPF of the bounce domain
)

// Record states. A record not checked yet, or whose lookups never gave a
// definite answer, is missing.
const (
	RecordVerified   = "verified"
	RecordMissing    = "missing"     // no record of its kind at its name
	RecordWrongValue = "wrong_value" // one of its kind, with another value
)

// Suggested values of the records that do not block verification. SPF
// authorises the hosts named by the domain's A and MX records, the usual
// home of a self-hosted Herald; DMARC starts in monitoring mode, which
// reports without affecting delivery.
const (
	suggestedSPF   = "v=spf1 a mx ~all"
	suggestedDMARC = "v=DMARC1; p=none"
	returnPathSPF  = "v=spf1 mx ~all" // the bounce domain's MX is the Herald host
)

// BounceSubdomain is the label under a sender domain that receives bounces
// when an inbound host is configured: the envelope sender of a message from
// example.com is bounce+<token>@bounce.example.com.
const BounceSubdomain = "bounce"

// ReturnPathDomain is the bounce domain of a sender domain.
func ReturnPathDomain(domain string) string { return BounceSubdomain + "." + domain }

func dkimKey(d storage.Domain) dkim.Key {
	return dkim.Key{Algorithm: dkim.Algorithm(d.DKIMAlgorithm), Selector: d.DKIMSelector, PrivatePEM: d.DKIMKey}
}

// domainView builds the API's view of a stored domain.
func (s *Service) domainView(d storage.Domain) (Domain, error) {
	records, err := s.domainRecords(d)
	if err != nil {
		return Domain{}, err
	}
	view := Domain{ID: d.ID, Domain: d.Name, Verified: d.Verified, Status: DomainPending, Records: records,
		ProjectID: d.ProjectID, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	if d.Verified {
		view.Status = DomainVerified
	}
	if !d.LastCheckedAt.IsZero() {
		t := d.LastCheckedAt
		view.LastCheckedAt = &t
	}
	return view, nil
}

// domainRecords lists the records to publish: DKIM (required), SPF and
// DMARC suggestions, and the bounce domain's records when inbound mail is
// on.
func (s *Service) domainRecords(d storage.Domain) ([]DNSRecord, error) {
	key := dkimKey(d)
	value, err := key.RecordValue()
	if err != nil {
		return nil, err
	}
	records := []DNSRecord{
		{Type: "TXT", Name: key.RecordName(d.Name), Value: value, Purpose: PurposeDKIM, Required: true},
		{Type: "TXT", Name: d.Name, Value: suggestedSPF, Purpose: PurposeSPF},
		{Type: "TXT", Name: "_dmarc." + d.Name, Value: suggestedDMARC, Purpose: PurposeDMARC},
	}
	if s.inboundHost != "" {
		bounce := ReturnPathDomain(d.Name)
		records = append(records,
			DNSRecord{Type: "MX", Name: bounce, Value: "10 " + s.inboundHost, Purpose: PurposeReturnPath},
			DNSRecord{Type: "TXT", Name: bounce, Value: returnPathSPF, Purpose: PurposeReturnPathSPF})
	}
	for i := range records {
		records[i].Status = recordStatus(d, records[i].Purpose)
		if f, ok := d.CheckStatus[records[i].Purpose+foundSuffix]; ok {
			records[i].Found = &f
		}
	}
	records[0].ValueChunks = dkim.TXTStrings(value)
	return records, nil
}

// foundSuffix marks, in a domain's stored check status, the key that holds
// the value a record's last check saw ("dkim/found").
const foundSuffix = "/found"

func setFound(status map[string]string, purpose, found string) {
	if found == "" {
		delete(status, purpose+foundSuffix)
		return
	}
	status[purpose+foundSuffix] = found
}

func recordStatus(d storage.Domain, purpose string) string {
	switch s := d.CheckStatus[purpose]; s {
	case RecordVerified, RecordWrongValue:
		return s
	}
	return RecordMissing // also the "pending" and "failed" of older checks
}
