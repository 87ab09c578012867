package insights

import (
	"context"
	"sort"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/storage"
)

// SeriesQuery is GET /analytics/timeseries's query, as given.
type SeriesQuery struct {
	From, To, TZ, Interval string
}

// SeriesPoint is one bucket of the time series.
type SeriesPoint struct {
	Time       time.Time `json:"time"`
	Sent       int       `json:"sent"`
	Delivered  int       `json:"delivered"`
	Opened     int       `json:"opened"`
	Clicked    int       `json:"clicked"`
	Bounced    int       `json:"bounced"`
	Complained int       `json:"complained"`
}

// Series is the answer of GET /analytics/timeseries.
type Series struct {
	From     time.Time     `json:"from"`
	To       time.Time     `json:"to"`
	TZ       string        `json:"tz"`
	Interval string        `json:"interval"`
	Data     []SeriesPoint `json:"data"`
}

// maxBuckets bounds a series: a year of days, or five weeks of hours.
const maxBuckets = 900

// seriesField maps the counted email events to their point field.
func seriesField(p *SeriesPoint, name string) *int {
	switch name {
	case event.EventSent:
		return &p.Sent
	case event.EventDelivery:
		return &p.Delivered
	case "email.open":
		return &p.Opened
	case "email.click":
		return &p.Clicked
	case event.EventBounce:
		return &p.Bounced
	case "email.complaint":
		return &p.Complained
	}
	return nil
}

// TimeSeries counts email events in hourly or daily buckets of a time
// zone (default UTC) between from (default 30 days before to) and to
// (default now). Bad dates, zones or intervals are 422s.
func (a *Service) TimeSeries(ctx context.Context, projectID string, q SeriesQuery) (Series, error) {
	s, err := a.seriesRange(q)
	if err != nil {
		return s, err
	}
	loc, _ := time.LoadLocation(s.TZ)
	names := []string{event.EventSent, event.EventDelivery, "email.open", "email.click", event.EventBounce, "email.complaint"}
	slots, err := storage.EmailEventSlots(ctx, a.db.Reader(), projectID, names, s.From, s.To)
	if err != nil {
		return s, err
	}
	index := map[time.Time]int{}
	for t := bucketStart(s.From, loc, s.Interval); t.Before(s.To); t = nextBucket(t, loc, s.Interval) {
		index[t] = len(s.Data)
		s.Data = append(s.Data, SeriesPoint{Time: t})
	}
	for _, sc := range slots {
		if i, ok := index[bucketStart(sc.Start, loc, s.Interval)]; ok {
			*seriesField(&s.Data[i], sc.Name) += sc.Count
		}
	}
	return s, nil
}

func (a *Service) seriesRange(q SeriesQuery) (Series, error) {
	var v apierr.Validation
	s := Series{TZ: q.TZ, Interval: q.Interval, To: a.now()}
	if s.TZ == "" {
		s.TZ = "UTC"
	}
	if _, err := time.LoadLocation(s.TZ); err != nil {
		v.Add("tz", "invalid_timezone", "Unknown time zone", q.TZ)
	}
	if s.Interval == "" {
		s.Interval = "day"
	}
	if s.Interval != "day" && s.Interval != "hour" {
		v.Add("interval", "invalid_enum_value", "Expected 'hour' | 'day'", q.Interval)
	}
	s.To = parseQueryDate(&v, "to", q.To, s.To)
	s.From = parseQueryDate(&v, "from", q.From, s.To.AddDate(0, 0, -30))
	if len(v.Fields) == 0 {
		step := 24 * time.Hour
		if s.Interval == "hour" {
			step = time.Hour
		}
		switch {
		case !s.From.Before(s.To):
			v.Add("from", "invalid_date", "from must be before to", q.From)
		case s.To.Sub(s.From)/step > maxBuckets:
			v.Add("from", "too_big", "The range holds too many buckets; use a shorter range or a daily interval", q.From)
		}
	}
	return s, v.Err()
}

func parseQueryDate(v *apierr.Validation, field, raw string, def time.Time) time.Time {
	if raw == "" {
		return def
	}
	t, ok := campaigns.ParseDateString(raw)
	if !ok {
		v.Add(field, "invalid_date", "Not a date", raw)
	}
	return t
}

// bucketStart is the start of the local hour or day holding t in loc, as
// a UTC instant. Local hours matter: zones such as Asia/Kolkata are offset
// by half hours.
func bucketStart(t time.Time, loc *time.Location, interval string) time.Time {
	l := t.In(loc)
	if interval == "hour" {
		return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, loc).UTC()
	}
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc).UTC()
}

// nextBucket is the start of the bucket after the one starting at t. A
// local day lasts 23 to 25 hours, so 25 hours on is always in the next one.
func nextBucket(t time.Time, loc *time.Location, interval string) time.Time {
	if interval == "hour" {
		// In the hour a clock turns back, the local hour names two
		// instants and time.Date picks the first: step by the clock.
		if next := bucketStart(t.Add(time.Hour), loc, interval); next.After(t) {
			return next
		}
		return t.Add(time.Hour)
	}
	return bucketStart(t.Add(25*time.Hour), loc, interval)
}

// CampaignMetric is one campaign's numbers for analytics.
type CampaignMetric struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	Sent      int     `json:"sent"`
	Delivered int     `json:"delivered"`
	Opened    int     `json:"opened"`
	Clicked   int     `json:"clicked"`
	Bounced   int     `json:"bounced"`
	OpenRate  float64 `json:"openRate"`
	ClickRate float64 `json:"clickRate"`
}

func campaignMetric(r storage.CampaignCountsRow) CampaignMetric {
	n := r.Counts
	return CampaignMetric{ID: r.ID, Name: r.Name, Status: r.Status, Sent: n.Sent, Delivered: n.Delivered,
		Opened: n.Opened, Clicked: n.Clicked, Bounced: n.Bounced,
		OpenRate: campaigns.RatePercent(n.Opened, n.Delivered), ClickRate: campaigns.RatePercent(n.Clicked, n.Delivered)}
}

// metricValue reads a metric by its query name.
func metricValue(m CampaignMetric, metric string) (float64, bool) {
	switch metric {
	case "sent":
		return float64(m.Sent), true
	case "delivered":
		return float64(m.Delivered), true
	case "opened", "opens":
		return float64(m.Opened), true
	case "clicked", "clicks":
		return float64(m.Clicked), true
	case "bounced":
		return float64(m.Bounced), true
	case "openRate":
		return m.OpenRate, true
	case "clickRate":
		return m.ClickRate, true
	}
	return 0, false
}

// TopCampaigns ranks the project's campaigns that sent anything by a
// metric (default opened).
func (s *Service) TopCampaigns(ctx context.Context, projectID, metric string, limit int) ([]CampaignMetric, error) {
	if metric == "" {
		metric = "opened"
	}
	if _, ok := metricValue(CampaignMetric{}, metric); !ok {
		return nil, apierr.Invalid(apierr.FieldError{Field: "metric", Code: "invalid_enum_value",
			Message: "Expected sent, delivered, opened, clicked, bounced, openRate or clickRate", Received: metric})
	}
	rows, err := storage.AllCampaignCounts(ctx, s.db.Reader(), projectID)
	out := []CampaignMetric{}
	for _, r := range rows {
		if r.Counts.Emails > 0 {
			out = append(out, campaignMetric(r))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		vi, _ := metricValue(out[i], metric)
		vj, _ := metricValue(out[j], metric)
		return vi > vj
	})
	return out[:min(limit, len(out))], err
}

// CampaignBreakdown is GET /analytics/campaign-stats.
type CampaignBreakdown struct {
	ByStatus  map[string]int   `json:"byStatus"`
	Totals    CampaignMetric   `json:"totals"`
	Campaigns []CampaignMetric `json:"campaigns"`
}

// CampaignStatsBreakdown counts campaigns by status and sums their emails.
func (s *Service) CampaignStatsBreakdown(ctx context.Context, projectID string) (CampaignBreakdown, error) {
	rows, err := storage.AllCampaignCounts(ctx, s.db.Reader(), projectID)
	b := CampaignBreakdown{ByStatus: map[string]int{}, Campaigns: make([]CampaignMetric, 0, len(rows))}
	var total storage.CampaignCounts
	for _, r := range rows {
		b.ByStatus[r.Status]++
		b.Campaigns = append(b.Campaigns, campaignMetric(r))
		n := r.Counts
		total.Emails, total.Sent, total.Delivered = total.Emails+n.Emails, total.Sent+n.Sent, total.Delivered+n.Delivered
		total.Opened, total.Clicked, total.Bounced = total.Opened+n.Opened, total.Clicked+n.Clicked, total.Bounced+n.Bounced
	}
	b.Totals = campaignMetric(storage.CampaignCountsRow{ID: "", Name: "all", Counts: total})
	return b, err
}

// TopEvents lists the most frequent event names.
func (s *Service) TopEvents(ctx context.Context, projectID string, limit int) ([]storage.NameCount, error) {
	rows, err := storage.EventStats(ctx, s.db.Reader(), projectID)
	if rows == nil {
		rows = []storage.NameCount{}
	}
	return rows[:min(limit, len(rows))], err
}
