package report

import "net/textproto"

// Feedback is an abuse feedback report (ARF, RFC 5965).
type Feedback struct {
	FeedbackType     string // lower case: abuse, fraud, virus, other, not-spam
	UserAgent        string
	Version          string
	OriginalMailFrom string
	OriginalRcptTo   []string
	ReportingMTA     string
	SourceIP         string
	ArrivalDate      string
}

// Complaint reports whether the feedback is a recipient calling the
// message abuse (spam), the report a sender must act on. Other types
// (fraud, virus, not-spam) are not about the recipient's wishes.
func (f *Feedback) Complaint() bool { return f.FeedbackType == "abuse" }

// feedbackFrom reads the report's one field group. Fields may be split
// over groups by a sloppy sender, so every group is read.
func feedbackFrom(groups []textproto.MIMEHeader) *Feedback {
	all := textproto.MIMEHeader{}
	for _, g := range groups {
		for k, vs := range g {
			all[k] = append(all[k], vs...)
		}
	}
	f := &Feedback{
		FeedbackType:     token(all.Get("Feedback-Type")),
		UserAgent:        all.Get("User-Agent"),
		Version:          all.Get("Version"),
		OriginalMailFrom: address(all.Get("Original-Mail-From")),
		ReportingMTA:     typed(all.Get("Reporting-Mta")),
		SourceIP:         all.Get("Source-Ip"),
		ArrivalDate:      all.Get("Arrival-Date"),
	}
	for _, rcpt := range all.Values("Original-Rcpt-To") {
		f.OriginalRcptTo = append(f.OriginalRcptTo, address(rcpt))
	}
	return f
}
