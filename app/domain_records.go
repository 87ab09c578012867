package app

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
	Status   string `json:"status"`   // pending | verified | failed
}

// Record purposes, the keys of a domain's stored check status.
const (
	PurposeDKIM          = "dkim"
	PurposeSPF           = "spf"
	PurposeDMARC         = "dmarc"
	PurposeReturnPath    = "return-path"     // MX of the bounce domain
	PurposeReturnPathSPF = "return-path-spf" // SPF of the bounce domain
)

// Record states.
const (
	RecordPending  = "pending" // not checked yet, or never answered definitely
	RecordVerified = "verified"
	RecordFailed   = "failed"
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
func (a *App) domainView(d storage.Domain) (Domain, error) {
	records, err := a.domainRecords(d)
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
func (a *App) domainRecords(d storage.Domain) ([]DNSRecord, error) {
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
	if a.inboundHost != "" {
		bounce := ReturnPathDomain(d.Name)
		records = append(records,
			DNSRecord{Type: "MX", Name: bounce, Value: "10 " + a.inboundHost, Purpose: PurposeReturnPath},
			DNSRecord{Type: "TXT", Name: bounce, Value: returnPathSPF, Purpose: PurposeReturnPathSPF})
	}
	for i := range records {
		records[i].Status = recordStatus(d, records[i].Purpose)
	}
	return records, nil
}

func recordStatus(d storage.Domain, purpose string) string {
	if s := d.CheckStatus[purpose]; s != "" {
		return s
	}
	return RecordPending
}
