package accounts

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math"
	"strconv"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// Billing without a payment provider: per-project caps per category of
// mail, counted on the emails a project created this UTC month.

// UsageSource is a category of mail a cap applies to.
type UsageSource string

// The categories.
const (
	UsageTransactional UsageSource = "transactional" // /v1/send
	UsageCampaigns     UsageSource = "campaigns"
	UsageWorkflows     UsageSource = "workflows"
	UsageInbound       UsageSource = "inbound" // not counted: always 0
)

var usageSources = []UsageSource{UsageWorkflows, UsageCampaigns, UsageTransactional, UsageInbound}

// LimitStatus is one category's cap and use.
type LimitStatus struct {
	Limit      *int64  `json:"limit"`
	Usage      int64   `json:"usage"`
	Percentage float64 `json:"percentage"`
	IsWarning  bool    `json:"isWarning"`
	IsBlocked  bool    `json:"isBlocked"`
}

func limitStatus(limit *int64, usage int64) LimitStatus {
	s := LimitStatus{Limit: limit, Usage: usage}
	switch {
	case limit == nil:
	case *limit == 0:
		s.Percentage = 100
	default:
		s.Percentage = math.Round(float64(usage)*10000/float64(*limit)) / 100
	}
	s.IsWarning = s.Percentage >= 80
	s.IsBlocked = limit != nil && usage >= *limit
	return s
}

// monthBounds is the UTC month holding t.
func monthBounds(t time.Time) (time.Time, time.Time) {
	t = t.UTC()
	from := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return from, from.AddDate(0, 1, 0)
}

// usageExcludingTests is the month's usage without campaign test sends
// (no contact, no campaign, subject "[TEST] ...": see SendCampaignTest).
func (s *Service) monthUsage(ctx context.Context, q storage.Querier, projectID string) (map[UsageSource]int64, error) {
	from, to := monthBounds(s.now())
	u, err := storage.ProjectUsage(ctx, q, projectID, from, to)
	if err != nil {
		return nil, err
	}
	return map[UsageSource]int64{UsageTransactional: u.Transactional, UsageCampaigns: u.Campaigns,
		UsageWorkflows: u.Workflows, UsageInbound: 0}, nil
}

func limitOf(l storage.Limits, s UsageSource) *int64 {
	switch s {
	case UsageWorkflows:
		return l.Workflows
	case UsageCampaigns:
		return l.Campaigns
	case UsageTransactional:
		return l.Transactional
	}
	return l.Inbound
}

// BillingLimits returns each category's cap and this month's use.
func (a *Service) BillingLimits(ctx context.Context, acc Access) (map[UsageSource]LimitStatus, error) {
	l, err := storage.ProjectLimits(ctx, a.db.Reader(), acc.Project.ID)
	if err != nil {
		return nil, projectErr(err)
	}
	usage, err := a.monthUsage(ctx, a.db.Reader(), acc.Project.ID)
	if err != nil {
		return nil, err
	}
	out := map[UsageSource]LimitStatus{}
	for _, s := range usageSources {
		out[s] = limitStatus(limitOf(l, s), usage[s])
	}
	return out, nil
}

// SetBillingLimits replaces every cap: each of the four must be given, a
// whole number >= 0 or null (no cap).
func (a *Service) SetBillingLimits(ctx context.Context, acc Access, in map[string]json.RawMessage) (map[UsageSource]LimitStatus, error) {
	var v apierr.Validation
	vals := map[UsageSource]*int64{}
	for _, s := range usageSources {
		raw, ok := in[string(s)]
		if !ok {
			v.Add(string(s), "invalid_type", "Required: a whole number >= 0, or null for no cap", "undefined")
			continue
		}
		if string(raw) == "null" {
			continue
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n < 0 {
			v.Add(string(s), "invalid_type", "Expected a whole number >= 0, or null for no cap", string(raw))
			continue
		}
		vals[s] = &n
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	l := storage.Limits{Workflows: vals[UsageWorkflows], Campaigns: vals[UsageCampaigns],
		Transactional: vals[UsageTransactional], Inbound: vals[UsageInbound]}
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		tx.OnCommit(a.limits.Forget)
		return tx.SetProjectLimits(ctx, acc.Project.ID, l, a.now())
	})
	if err != nil {
		return nil, projectErr(err)
	}
	return a.BillingLimits(ctx, acc)
}

// Consumption is GET .../billing-consumption.
type Consumption struct {
	Month         string `json:"month"`
	Transactional int64  `json:"transactional"`
	Campaigns     int64  `json:"campaigns"`
	Workflows     int64  `json:"workflows"`
	Inbound       int64  `json:"inbound"`
	Total         int64  `json:"total"`
}

// BillingConsumption counts this UTC month's emails by category.
func (s *Service) BillingConsumption(ctx context.Context, acc Access) (Consumption, error) {
	u, err := s.monthUsage(ctx, s.db.Reader(), acc.Project.ID)
	if err != nil {
		return Consumption{}, err
	}
	c := Consumption{Month: s.now().Format("2006-01"), Transactional: u[UsageTransactional], Campaigns: u[UsageCampaigns],
		Workflows: u[UsageWorkflows], Inbound: u[UsageInbound]}
	c.Total = c.Transactional + c.Campaigns + c.Workflows + c.Inbound
	return c, nil
}

// billingLocks serialise, per project, the sends that a cap applies to:
// the check of the month's use and the creation of the emails it admits
// happen under one lock, so concurrent sends never pass a cap together.
// Striped, so that its size does not grow with the number of projects.
type billingLocks [64]chanMutex

// chanMutex is a mutex whose Lock can give up with a context.
type chanMutex chan struct{}

func (l *billingLocks) of(projectID string) chanMutex {
	h := fnv.New32a()
	_, _ = h.Write([]byte(projectID))
	return l[h.Sum32()%uint32(len(l))]
}

func newBillingLocks() *billingLocks {
	var l billingLocks
	for i := range l {
		l[i] = make(chanMutex, 1)
	}
	return &l
}

// ErrBillingLimit builds the error of a send over a cap.
func billingLimitError(kind apierr.Kind, s UsageSource, limit, usage int64, n int) *apierr.Error {
	return &apierr.Error{Kind: kind, Code: "BILLING_LIMIT_EXCEEDED",
		Message:    "This send would exceed the project's monthly " + string(s) + " limit of " + strconv.FormatInt(limit, 10) + " emails",
		Details:    map[string]any{"category": string(s), "limit": limit, "usage": usage, "requested": n},
		Suggestion: "Raise the limit (PUT /users/@me/projects/{id}/billing-limits) or wait for next month"}
}

// WithinBillingLimit runs create, which creates n emails of source for a
// project, only if the month's use plus n stays within the cap; the check
// and create are atomic against every other call for the project. Over
// the cap it returns BILLING_LIMIT_EXCEEDED (kind: 429 for /v1/send, 403
// for campaigns; workflows mark their step FAILED) and create does not run.
// Without a cap, create just runs.
func (s *Service) WithinBillingLimit(ctx context.Context, projectID string, source UsageSource, n int, kind apierr.Kind, create func() error) error {
	l, err := s.projectLimits(ctx, projectID)
	if err != nil {
		return projectErr(err)
	}
	if limitOf(l, source) == nil {
		return create()
	}
	lock := s.billing.of(projectID)
	select {
	case lock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-lock }()
	if err := s.CheckBillingLimit(ctx, projectID, source, n, kind); err != nil {
		return err
	}
	return create()
}

// CheckBillingLimit reports whether n more emails of source fit the
// project's cap now, without reserving them (see WithinBillingLimit).
func (s *Service) CheckBillingLimit(ctx context.Context, projectID string, source UsageSource, n int, kind apierr.Kind) error {
	l, err := storage.ProjectLimits(ctx, s.db.Reader(), projectID)
	if err != nil {
		return projectErr(err)
	}
	limit := limitOf(l, source)
	if limit == nil {
		return nil
	}
	usage, err := s.monthUsage(ctx, s.db.Reader(), projectID)
	if err != nil {
		return err
	}
	if usage[source]+int64(n) > *limit {
		return billingLimitError(kind, source, *limit, usage[source], n)
	}
	return nil
}

// projectLimits is storage.ProjectLimits through the limits cache: most
// projects have no cap, and every send asks. CheckBillingLimit, which
// counts the month's use once a cap applies, reads the caps afresh.
func (s *Service) projectLimits(ctx context.Context, projectID string) (storage.Limits, error) {
	l, ok, gen := s.limits.Get(projectID)
	if ok {
		return l, nil
	}
	l, err := storage.ProjectLimits(ctx, s.db.Reader(), projectID)
	if err == nil {
		s.limits.Put(projectID, l, gen)
	}
	return l, err
}
