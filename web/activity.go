package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/insights"
)

// listActivity serves GET /activity: a cursor feed, newest first.
func (s *Server) listActivity(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := s.app.Insights.ListActivity(r.Context(), projectID(r), insights.ActivityQuery{Limit: limitParam(r),
		Cursor: q.Get("cursor"), Type: q.Get("type"), ContactID: q.Get("contactId")})
	return reply(w, http.StatusOK)(p, err)
}

// activityStats serves GET /activity/stats?days=.
func (s *Server) activityStats(w http.ResponseWriter, r *http.Request) error {
	days, _ := queryInt(r, "days")
	st, err := s.app.Insights.GetActivityStats(r.Context(), projectID(r), days)
	return reply(w, http.StatusOK)(st, err)
}

// activityRecentCount serves GET /activity/recent-count?minutes=.
func (s *Server) activityRecentCount(w http.ResponseWriter, r *http.Request) error {
	minutes, _ := queryInt(r, "minutes")
	rc, err := s.app.Insights.GetRecentCount(r.Context(), projectID(r), minutes)
	return reply(w, http.StatusOK)(rc, err)
}

// activityTypes serves GET /activity/types: the distinct event names.
func (s *Server) activityTypes(w http.ResponseWriter, r *http.Request) error {
	names, err := s.app.Insights.ActivityTypes(r.Context(), projectID(r))
	return reply(w, http.StatusOK)(names, err)
}

// activityUpcoming serves GET /activity/upcoming: scheduled sends.
func (s *Server) activityUpcoming(w http.ResponseWriter, r *http.Request) error {
	up, err := s.app.Insights.UpcomingSends(r.Context(), projectID(r), limitParam(r))
	return reply(w, http.StatusOK)(up, err)
}

// analyticsTimeseries serves GET /analytics/timeseries.
func (s *Server) analyticsTimeseries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	series, err := s.app.Insights.TimeSeries(r.Context(), projectID(r), insights.SeriesQuery{From: q.Get("from"), To: q.Get("to"),
		TZ: q.Get("tz"), Interval: q.Get("interval")})
	return reply(w, http.StatusOK)(series, err)
}

// analyticsTopCampaigns serves GET /analytics/top-campaigns?metric=&limit=.
func (s *Server) analyticsTopCampaigns(w http.ResponseWriter, r *http.Request) error {
	top, err := s.app.Insights.TopCampaigns(r.Context(), projectID(r), r.URL.Query().Get("metric"), limitParam(r))
	return reply(w, http.StatusOK)(top, err)
}

// analyticsCampaignStats serves GET /analytics/campaign-stats.
func (s *Server) analyticsCampaignStats(w http.ResponseWriter, r *http.Request) error {
	b, err := s.app.Insights.CampaignStatsBreakdown(r.Context(), projectID(r))
	return reply(w, http.StatusOK)(b, err)
}

// analyticsTopEvents serves GET /analytics/top-events?limit=.
func (s *Server) analyticsTopEvents(w http.ResponseWriter, r *http.Request) error {
	top, err := s.app.Insights.TopEvents(r.Context(), projectID(r), limitParam(r))
	return reply(w, http.StatusOK)(top, err)
}
