package report

import (
	"net/textproto"
	"strings"
)

// DSN is a delivery status notification (RFC 3464).
type DSN struct {
	ReportingMTA string
	Recipients   []RecipientStatus
}

// RecipientStatus is a DSN's per-recipient block.
type RecipientStatus struct {
	FinalRecipient    string // address, without the "rfc822;" type
	OriginalRecipient string
	Action            string // lower case: failed, delayed, delivered, relayed, expanded
	Status            string // enhanced status code, e.g. 5.1.1
	DiagnosticCode    string // as given, e.g. "smtp; 550 5.1.1 no such user"
	RemoteMTA         string
}

// Permanent reports a permanent failure: action failed with a 5.x.x
// status. A "failed" with a 4.x.x status is a message that expired in a
// queue after temporary errors, which says nothing lasting about the
// address.
func (r RecipientStatus) Permanent() bool {
	return r.Action == "failed" && strings.HasPrefix(r.Status, "5.")
}

// Names reports whether the block is about the address, by its original
// or final recipient.
func (r RecipientStatus) Names(addr string) bool {
	return strings.EqualFold(r.FinalRecipient, addr) || strings.EqualFold(r.OriginalRecipient, addr)
}

// About picks the block that speaks for a message sent to one recipient:
// the block naming that recipient, or, when none does (a forwarder or
// alias rewrote the address), the only block there is.
func (d *DSN) About(recipient string) (RecipientStatus, bool) {
	for _, r := range d.Recipients {
		if r.Names(recipient) {
			return r, true
		}
	}
	if len(d.Recipients) == 1 {
		return d.Recipients[0], true
	}
	return RecipientStatus{}, false
}

// dsnFrom reads the per-message group and the per-recipient groups. A
// group with an Action or a Final-Recipient is a recipient's, whatever its
// position, so a report that omits the per-message group still reads.
func dsnFrom(groups []textproto.MIMEHeader) *DSN {
	d := &DSN{}
	for _, g := range groups {
		if g.Get("Action") == "" && g.Get("Final-Recipient") == "" {
			if mta := g.Get("Reporting-Mta"); mta != "" {
				d.ReportingMTA = typed(mta)
			}
			continue
		}
		d.Recipients = append(d.Recipients, RecipientStatus{
			FinalRecipient:    address(g.Get("Final-Recipient")),
			OriginalRecipient: address(g.Get("Original-Recipient")),
			Action:            token(g.Get("Action")),
			Status:            token(g.Get("Status")),
			DiagnosticCode:    g.Get("Diagnostic-Code"),
			RemoteMTA:         typed(g.Get("Remote-Mta")),
		})
	}
	return d
}
