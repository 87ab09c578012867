package campaigns

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// CampaignQuery is GET /campaigns's query.
type CampaignQuery struct {
	Page   paging.PageRequest
	Status string
	Search string
	Sort   string // name | createdAt | updatedAt; anything else is createdAt
	Dir    string // asc | desc; anything else is desc
}

var campaignSorts = map[string]string{
	"name":      storage.CampaignSortName,
	"createdAt": storage.CampaignSortCreated,
	"updatedAt": storage.CampaignSortUpdated,
}

// ListCampaigns returns one numbered page of a project's campaigns. An
// unknown status is a 400; an unknown sort or direction falls back to the
// default, as GET /contacts does.
func (s *Service) ListCampaigns(ctx context.Context, projectID string, q CampaignQuery) (paging.NumberedPage[Campaign], error) {
	if err := paging.CheckSearch(q.Search); err != nil {
		return paging.NumberedPage[Campaign]{}, err
	}
	switch q.Status {
	case "", storage.CampaignDraft, storage.CampaignScheduled, storage.CampaignSending, storage.CampaignSent, storage.CampaignCancelled:
	default:
		return paging.NumberedPage[Campaign]{}, apierr.BadRequest("Invalid status %q: use DRAFT, SCHEDULED, SENDING, SENT or CANCELLED", q.Status)
	}
	p := q.Page.Clamp()
	f := storage.CampaignFilter{ProjectID: projectID, Status: q.Status, Search: q.Search}
	sort, ok := campaignSorts[q.Sort]
	if !ok {
		sort = storage.CampaignSortCreated
	}
	r := s.db.Reader()
	rows, err := storage.ListCampaigns(ctx, r, f, sort, !strings.EqualFold(q.Dir, "asc"), p.Offset(), p.PageSize)
	if err != nil {
		return paging.NumberedPage[Campaign]{}, err
	}
	total, err := storage.CountCampaigns(ctx, r, f)
	if err != nil {
		return paging.NumberedPage[Campaign]{}, err
	}
	ids := make([]string, len(rows))
	for i, c := range rows {
		ids[i] = c.ID
	}
	counts, err := storage.CountCampaignsEmails(ctx, r, ids)
	out := make([]Campaign, len(rows))
	for i, c := range rows {
		out[i] = campaignView(c, counts[c.ID])
	}
	return paging.Numbered(out, p, total), err
}

// CampaignStats is GET /campaigns/{id}/stats: Plunk's names, as on the
// campaign object, counted from the email rows, and rates in percent (two
// decimals). Delivery and bounce rates are of the emails sent; open and
// click rates of those delivered. failedCount counts emails that could
// not be built for their recipient (a render error) or were refused for
// good without a bounce.
type CampaignStats struct {
	CampaignID      string  `json:"campaignId"`
	Status          string  `json:"status"`
	TotalRecipients int     `json:"totalRecipients"`
	SentCount       int     `json:"sentCount"`
	DeliveredCount  int     `json:"deliveredCount"`
	OpenedCount     int     `json:"openedCount"`
	ClickedCount    int     `json:"clickedCount"`
	BouncedCount    int     `json:"bouncedCount"`
	ComplainedCount int     `json:"complainedCount"`
	FailedCount     int     `json:"failedCount"`
	PendingCount    int     `json:"pendingCount"`
	CancelledCount  int     `json:"cancelledCount"`
	DeliveryRate    float64 `json:"deliveryRate"`
	OpenRate        float64 `json:"openRate"`
	ClickRate       float64 `json:"clickRate"`
	BounceRate      float64 `json:"bounceRate"`
}

// GetCampaignStats counts a campaign's emails by outcome.
func (s *Service) GetCampaignStats(ctx context.Context, projectID, id string) (CampaignStats, error) {
	c, err := storage.CampaignByID(ctx, s.db.Reader(), projectID, id)
	if err != nil {
		return CampaignStats{}, campaignErr(err)
	}
	n, err := storage.CountCampaignEmails(ctx, s.db.Reader(), c.ID)
	return campaignStats(c, n), err
}

func campaignStats(c storage.Campaign, n storage.CampaignCounts) CampaignStats {
	return CampaignStats{CampaignID: c.ID, Status: c.Status, TotalRecipients: c.TotalRecipients,
		SentCount: n.Sent, DeliveredCount: n.Delivered, OpenedCount: n.Opened, ClickedCount: n.Clicked,
		BouncedCount: n.Bounced, ComplainedCount: n.Complained, FailedCount: n.Failed, PendingCount: n.Pending,
		CancelledCount: n.Cancelled,
		DeliveryRate:   RatePercent(n.Delivered, n.Sent), OpenRate: RatePercent(n.Opened, n.Delivered),
		ClickRate: RatePercent(n.Clicked, n.Delivered), BounceRate: RatePercent(n.Bounced, n.Sent)}
}

// ratePercent is part of whole in percent with two decimals; 0 of nothing.
func RatePercent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return math.Round(float64(part)*10000/float64(whole)) / 100
}

// TestSendResult is the answer of POST /campaigns/{id}/test.
type TestSendResult struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	EmailID string `json:"emailId"`
}

// SendCampaignTest sends one copy of a campaign to an address now, its
// subject prefixed "[TEST] ". It is rendered with the address's contact
// data when such a contact exists, creates no contact, and is no email of
// the campaign: it counts in none of its numbers.
func (s *Service) SendCampaignTest(ctx context.Context, projectID, id, to string) (TestSendResult, error) {
	var v apierr.Validation
	email := verify.CheckEmail(&v, "email", to)
	if err := v.Err(); err != nil {
		return TestSendResult{}, err
	}
	c, err := storage.CampaignByID(ctx, s.db.Reader(), projectID, id)
	if err != nil {
		return TestSendResult{}, campaignErr(err)
	}
	if err := s.senders.CheckSender(ctx, projectID, c.From); err != nil {
		return TestSendResult{}, err
	}
	test := c
	test.Subject, test.ID = "[TEST] "+c.Subject, ""
	out, err := s.campaignOutgoing(ctx, test)
	if err != nil {
		return TestSendResult{}, err
	}
	out.Test = true
	contact, err := storage.ContactByEmail(ctx, s.db.Reader(), projectID, email)
	if errors.Is(err, storage.ErrNotFound) {
		contact, err = storage.Contact{ID: ids.New(), Email: email}, nil
	}
	if err != nil {
		return TestSendResult{}, err
	}
	e, err := s.campaignEmail(ctx, out, test, contact)
	if err != nil {
		return TestSendResult{}, err
	}
	e.ContactID, e.Recipient = "", email // no contact events, no campaign counts
	err = s.db.Write(ctx, func(tx *storage.Tx) error { return s.messaging.QueueEmail(ctx, tx, e) })
	return TestSendResult{Success: true, Message: "Test email sent to " + email, EmailID: e.ID}, err
}
