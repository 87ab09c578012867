package insights

import (
	"context"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/storage"
)

// Activity is one item of the activity feed.
type Activity = storage.Activity

// ActivityQuery is GET /activity's query.
type ActivityQuery struct {
	Limit     int
	Cursor    string
	Type      string // an event name, or a category (activityCategories)
	ContactID string
}

// activityCategory reads a type filter that names a group of events
// rather than one name; the short forms name one email event.
func activityCategory(t string) (storage.ActivityFilter, bool) {
	switch strings.ToLower(t) {
	case "email", "contact", "segment", "workflow":
		return storage.ActivityFilter{Prefix: strings.ToLower(t) + "."}, true
	case "tracked":
		return storage.ActivityFilter{Tracked: true}, true
	case "sent":
		return storage.ActivityFilter{Name: event.EventSent}, true
	case "delivered":
		return storage.ActivityFilter{Name: event.EventDelivery}, true
	case "opened":
		return storage.ActivityFilter{Name: "email.open"}, true
	case "clicked":
		return storage.ActivityFilter{Name: "email.click"}, true
	case "bounced":
		return storage.ActivityFilter{Name: event.EventBounce}, true
	case "complained":
		return storage.ActivityFilter{Name: "email.complaint"}, true
	}
	return storage.ActivityFilter{Name: t}, false
}

// ListActivity is the project's feed of sends, deliveries, opens, clicks,
// bounces, complaints and tracked events, newest first: the events table
// already holds all of them.
func (s *Service) ListActivity(ctx context.Context, projectID string, q ActivityQuery) (paging.Page[Activity], error) {
	f, _ := activityCategory(q.Type)
	f.ProjectID, f.ContactID = projectID, q.ContactID
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Activity]{}, err
	}
	afterID := ""
	if after != nil {
		afterID = after.ID
	}
	rows, err := storage.ListActivity(ctx, s.db.Reader(), f, afterID, q.Limit+1)
	if err != nil {
		return paging.Page[Activity]{}, err
	}
	page := paging.Paginate(rows, q.Limit, func(x Activity) storage.Cursor { return storage.Cursor{Sort: "id", Desc: true, ID: x.ID} })
	if after == nil {
		page.Total, err = storage.CountActivity(ctx, s.db.Reader(), f)
	}
	return page, err
}

// ActivityStats counts events per type over the last Days days.
type ActivityStats struct {
	Since  time.Time      `json:"since"`
	Total  int            `json:"total"`
	ByType map[string]int `json:"byType"`
}

// GetActivityStats serves GET /activity/stats; days defaults to 30 and is
// kept within 1..365.
func (s *Service) GetActivityStats(ctx context.Context, projectID string, days int) (ActivityStats, error) {
	if days <= 0 {
		days = 30
	}
	now := s.now()
	since := now.AddDate(0, 0, -min(days, 365))
	by, err := storage.CountEventsByName(ctx, s.db.Reader(), projectID, since, now.Add(time.Millisecond))
	st := ActivityStats{Since: since, ByType: by}
	for _, n := range by {
		st.Total += n
	}
	return st, err
}

// RecentCount is GET /activity/recent-count.
type RecentCount struct {
	Count   int       `json:"count"`
	Minutes int       `json:"minutes"`
	Since   time.Time `json:"since"`
}

// GetRecentCount counts the events of the last minutes (default 60, at
// most a week).
func (s *Service) GetRecentCount(ctx context.Context, projectID string, minutes int) (RecentCount, error) {
	if minutes <= 0 {
		minutes = 60
	}
	minutes = min(minutes, 7*24*60)
	now := s.now()
	since := now.Add(-time.Duration(minutes) * time.Minute)
	by, err := storage.CountEventsByName(ctx, s.db.Reader(), projectID, since, now.Add(time.Millisecond))
	rc := RecentCount{Minutes: minutes, Since: since}
	for _, n := range by {
		rc.Count += n
	}
	return rc, err
}

// ActivityTypes lists the distinct event names of the project.
func (s *Service) ActivityTypes(ctx context.Context, projectID string) ([]string, error) {
	names, err := storage.EventNames(ctx, s.db.Reader(), projectID)
	if names == nil {
		names = []string{}
	}
	return names, err
}

// UpcomingSends lists the scheduled campaigns, soonest first.
func (s *Service) UpcomingSends(ctx context.Context, projectID string, limit int) ([]workflow.Upcoming, error) {
	rows, err := storage.UpcomingCampaigns(ctx, s.db.Reader(), projectID, limit)
	out := make([]workflow.Upcoming, len(rows))
	for i, c := range rows {
		out[i] = workflow.Upcoming{Kind: "campaign", ID: c.ID, Name: c.Name, ScheduledFor: c.ScheduledFor, AudienceType: c.AudienceType}
	}
	if err != nil {
		return out, err
	}
	return s.workflow.WithUpcomingSteps(ctx, projectID, out, limit)
}
