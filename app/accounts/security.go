package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/heraldmail/herald/storage"
)

// A project's sending reputation, with Plunk's thresholds: bounce and
// complaint rates over 7 days and all time, and absolute ceilings over 24
// hours and 7 days (lower for projects younger than 30 days). Any
// critical level is a violation; with AccountOptions.AutoDisable the
// project is then disabled.

// WindowStats are one window's numbers; rates are percentages.
type WindowStats struct {
	Total         int64   `json:"total"`
	Bounces       int64   `json:"bounces"`
	Complaints    int64   `json:"complaints"`
	BounceRate    float64 `json:"bounceRate"`
	ComplaintRate float64 `json:"complaintRate"`
}

func windowStats(c storage.MailCounts) WindowStats {
	w := WindowStats{Total: c.Total, Bounces: c.Bounces, Complaints: c.Complaints}
	if c.Total > 0 {
		w.BounceRate = float64(c.Bounces) * 100 / float64(c.Total)
		w.ComplaintRate = float64(c.Complaints) * 100 / float64(c.Total)
	}
	return w
}

// SecurityStatus is the status part of the security answer.
type SecurityStatus struct {
	ProjectID      string      `json:"projectId"`
	IsHealthy      bool        `json:"isHealthy"`
	ShouldDisable  bool        `json:"shouldDisable"`
	TwentyFourHour WindowStats `json:"twentyFourHour"`
	SevenDay       WindowStats `json:"sevenDay"`
	AllTime        WindowStats `json:"allTime"`
	IsNewProject   bool        `json:"isNewProject"`
	Violations     []string    `json:"violations"`
	Warnings       []string    `json:"warnings"`
}

// SecurityLevels are the four levels: healthy, warning or critical.
type SecurityLevels struct {
	Bounce7Day       string `json:"bounce7Day"`
	BounceAllTime    string `json:"bounceAllTime"`
	Complaint7Day    string `json:"complaint7Day"`
	ComplaintAllTime string `json:"complaintAllTime"`
}

// Security is GET .../security.
type Security struct {
	Status     SecurityStatus `json:"status"`
	Levels     SecurityLevels `json:"levels"`
	IsDisabled bool           `json:"isDisabled"`
}

const (
	levelHealthy  = "healthy"
	levelWarning  = "warning"
	levelCritical = "critical"
	// minRateEmails is the least emails in a window for its rates to count.
	minRateEmails = 100
	newProjectAge = 30 * 24 * time.Hour
	// DisabledReputation is the disabledReason of an auto-disabled project.
	DisabledReputation = "EMAIL_REPUTATION"
)

func rank(level string) int {
	switch level {
	case levelWarning:
		return 1
	case levelCritical:
		return 2
	}
	return 0
}

func worst(levels ...string) string {
	out := levelHealthy
	for _, l := range levels {
		if rank(l) > rank(out) {
			out = l
		}
	}
	return out
}

// assessment collects levels with their reasons.
type assessment struct{ violations, warnings []string }

// check grades value against warning and critical thresholds (reached is
// enough) and records the reason.
func (as *assessment) check(value, warn, crit float64, what string) string {
	switch {
	case value >= crit:
		as.violations = append(as.violations, fmt.Sprintf("%s is %s (critical at %s)", what, num(value), num(crit)))
		return levelCritical
	case value >= warn:
		as.warnings = append(as.warnings, fmt.Sprintf("%s is %s (warning at %s)", what, num(value), num(warn)))
		return levelWarning
	}
	return levelHealthy
}

func num(f float64) string { return fmt.Sprintf("%.4g", f) }

// rateCheck grades a rate when the window has enough emails and, for
// all-time rates, enough events.
func (as *assessment) rateCheck(w WindowStats, rate float64, count int64, warn, crit float64, minWarn, minCrit int64, what string) string {
	if w.Total < minRateEmails {
		return levelHealthy
	}
	switch {
	case rate >= crit && count >= minCrit:
		return as.check(rate, warn, crit, what)
	case rate >= warn && count >= minWarn:
		return as.check(rate, warn, 1e18, what)
	}
	return levelHealthy
}

// ProjectSecurity grades a project's reputation now.
func (a *Service) ProjectSecurity(ctx context.Context, p Project) (Security, error) {
	now := a.now()
	q := a.db.Reader()
	counts, err := storage.ProjectMailCounts(ctx, q, p.ID, now.Add(-24*time.Hour), now.Add(-7*24*time.Hour), time.Time{})
	if err != nil {
		return Security{}, err
	}
	day, week, all := windowStats(counts[0]), windowStats(counts[1]), windowStats(counts[2])
	isNew := now.Sub(p.CreatedAt) < newProjectAge
	var as assessment
	bounce7 := as.rateCheck(week, week.BounceRate, week.Bounces, 5, 10, 0, 0, "7-day bounce rate (%)")
	bounceAll := as.rateCheck(all, all.BounceRate, all.Bounces, 4, 8, 5, 10, "all-time bounce rate (%)")
	complaint7 := as.rateCheck(week, week.ComplaintRate, week.Complaints, 0.075, 0.15, 0, 0, "7-day complaint rate (%)")
	complaintAll := as.rateCheck(all, all.ComplaintRate, all.Complaints, 0.03, 0.12, 3, 5, "all-time complaint rate (%)")
	// Absolute ceilings, whatever the rate.
	b24w, b24c, b7w, b7c, c24w, c24c, c7w, c7c := 50.0, 100.0, 200.0, 500.0, 10.0, 25.0, 30.0, 75.0
	if isNew {
		b24w, b24c, b7w, b7c, c24w, c24c, c7w, c7c = 10, 25, 25, 50, 3, 7, 10, 20
	}
	bounce7 = worst(bounce7,
		as.check(float64(day.Bounces), b24w, b24c, "bounces in 24 hours"),
		as.check(float64(week.Bounces), b7w, b7c, "bounces in 7 days"))
	complaint7 = worst(complaint7,
		as.check(float64(day.Complaints), c24w, c24c, "complaints in 24 hours"),
		as.check(float64(week.Complaints), c7w, c7c, "complaints in 7 days"))
	s := Security{
		Status: SecurityStatus{ProjectID: p.ID, TwentyFourHour: day, SevenDay: week, AllTime: all, IsNewProject: isNew,
			Violations: nonNil(as.violations), Warnings: nonNil(as.warnings)},
		Levels:     SecurityLevels{Bounce7Day: bounce7, BounceAllTime: bounceAll, Complaint7Day: complaint7, ComplaintAllTime: complaintAll},
		IsDisabled: p.Disabled,
	}
	s.Status.ShouldDisable = len(as.violations) > 0
	s.Status.IsHealthy = !s.Status.ShouldDisable
	return s, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Security answers GET .../security for the authorized project; with
// auto-disable on, a violation disables the project first.
func (a *Service) Security(ctx context.Context, acc Access) (Security, error) {
	s, err := a.ProjectSecurity(ctx, acc.Project)
	if err != nil || !s.Status.ShouldDisable || !a.opts.AutoDisable || acc.Project.Disabled {
		return s, err
	}
	if err := a.disableForReputation(ctx, acc.Project, s); err != nil {
		return s, err
	}
	s.IsDisabled = true
	return s, nil
}

// disableForReputation disables a project whose reputation is critical:
// its keys stop, its queued sends are cancelled and its owners are told.
func (a *Service) disableForReputation(ctx context.Context, p Project, s Security) error {
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := storage.ProjectByID(ctx, tx, p.ID)
		if err != nil || cur.Disabled {
			return err
		}
		now := a.now()
		if err := tx.SetProjectDisabled(ctx, p.ID, true, DisabledReputation, now); err != nil {
			return err
		}
		if _, err := tx.CancelProjectEmails(ctx, p.ID, now); err != nil {
			return err
		}
		tx.OnCommit(func() { a.keys.ForgetKeys(p.Public, p.Secret) })
		return nil
	})
	if err != nil {
		return err
	}
	a.log.Warn("project disabled for its sending reputation", "project_id", p.ID, "violations", len(s.Status.Violations))
	a.tellOwnersDisabled(ctx, p, s.Status.Violations)
	return nil
}

// CheckReputations grades every enabled project and, with auto-disable
// on, disables those in violation. It runs as a periodic job.
func (a *Service) CheckReputations(ctx context.Context) error {
	if !a.opts.AutoDisable {
		return nil
	}
	ps, err := storage.ListProjects(ctx, a.db.Reader())
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Disabled {
			continue
		}
		s, err := a.ProjectSecurity(ctx, p)
		if err != nil {
			return err
		}
		if s.Status.ShouldDisable {
			if err := a.disableForReputation(ctx, p, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetupState is GET /projects/{id}/setup-state.
type SetupState struct {
	HasSubscription    bool       `json:"hasSubscription"`
	HasVerifiedDomain  bool       `json:"hasVerifiedDomain"`
	HasSentEmail       bool       `json:"hasSentEmail"`
	ContactCount       int64      `json:"contactCount"`
	LastCampaignSentAt *time.Time `json:"lastCampaignSentAt"`
	HasEnabledWorkflow bool       `json:"hasEnabledWorkflow"`
}

// SetupState reports how far a project's onboarding has come. Without a
// payment provider every project has a subscription.
func (s *Service) SetupState(ctx context.Context, acc Access) (SetupState, error) {
	st, err := storage.ProjectSetup(ctx, s.db.Reader(), acc.Project.ID)
	if err != nil {
		return SetupState{}, err
	}
	out := SetupState{HasSubscription: true, HasVerifiedDomain: st.VerifiedDomain, HasSentEmail: st.SentEmail,
		ContactCount: st.Contacts, HasEnabledWorkflow: st.EnabledWorkflow}
	if st.LastCampaignSentAt != nil {
		t := *st.LastCampaignSentAt
		out.LastCampaignSentAt = &t
	}
	return out, nil
}
